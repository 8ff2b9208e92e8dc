"""The shop's public JSON API (mounted at /api/env/shop): the only surface pages and agents touch.

Handlers are thin: they call the service functions (a refusal is a `SiteError`, which the site kit's
one handler answers) and emit one typed semantic event per meaningful action (`EVENTS` below lists
every event and its params).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from humantrace.environments.sessions import EnvHandle, EnvSessionDep
from humantrace.environments.shop import account_service as accounts
from humantrace.environments.shop import cart_service as carts
from humantrace.environments.shop import catalog_service as catalog
from humantrace.environments.shop import order_service as orders
from humantrace.environments.shop import responses as R
from humantrace.environments.shop.models import ShopState
from humantrace.environments.shop.pricing import DELIVERY_OPTIONS
from humantrace.environments.shop.schemas import (
    AccountChanges,
    AddCard,
    AddressFields,
    AddToCart,
    AddToWishlist,
    CancelOrder,
    CheckoutQuote,
    PlaceOrder,
    PostReview,
    RequestReturn,
    SetQuantity,
    SignIn,
)
from humantrace.environments.sitekit import state_of

# Semantic events: name -> params (documented for the event-condition verifier and the docs test).
EVENTS: dict[str, tuple[str, ...]] = {
    "search": ("query", "category", "sort"),
    "product_view": ("product_id",),
    "cart_add": ("product_id", "variant_id", "quantity"),
    "cart_update": ("product_id", "variant_id", "quantity"),
    "cart_remove": ("product_id", "variant_id"),
    "wishlist_add": ("product_id",),
    "wishlist_remove": ("product_id",),
    "coupon_applied": ("code", "discount_cents"),
    "order_placed": ("order_id", "total_cents", "item_count", "coupon_code", "delivery_option"),
    "order_cancelled": ("order_id", "reason"),
    "return_requested": ("order_id", "order_item_id", "product_id", "quantity", "reason", "resolution"),
    "address_added": ("address_id", "is_default"),
    "address_updated": ("address_id",),
    "address_deleted": ("address_id",),
    "default_address_set": ("address_id",),
    "payment_method_added": ("payment_method_id", "last4", "is_default"),
    "payment_method_deleted": ("payment_method_id", "last4"),
    "default_payment_set": ("payment_method_id", "last4"),
    "account_updated": ("fields",),
    "notification_read": ("notification_id",),
    "review_posted": ("product_id", "rating"),
    "signed_in": (),
    "signed_out": (),
}

router = APIRouter()


def signed_in(env: EnvHandle) -> ShopState:
    """The state, after refusing with 401 when the shopper has signed out."""
    state = state_of(env, ShopState)
    accounts.require_signed_in(state)
    return state


# ---------------------------------------------------------------- session and catalogue


@router.get("/me", response_model=R.Me | R.SignedOut)
def me(env: EnvSessionDep) -> dict[str, Any]:
    """Header data: who is signed in, cart count, unread notifications."""
    state = state_of(env, ShopState)
    customer = accounts.account(state)
    if not customer.signed_in:
        return {"signed_in": False, "name": None, "cart_count": 0, "unread_notifications": 0}
    return {
        "signed_in": True,
        "name": customer.full_name,
        "first_name": customer.full_name.split(" ")[0],
        "email": customer.email,
        "cart_count": sum(i.quantity for i in state.cart_items),
        "unread_notifications": sum(1 for n in state.notifications if not n.is_read),
    }


@router.post("/login", response_model=R.SignedIn)
@router.post("/auth/login", response_model=R.SignedIn)
def login(body: SignIn, env: EnvSessionDep) -> dict[str, Any]:
    """Sign in (the remembered device needs only the email); `/auth/login` also ends an expiry."""
    customer = accounts.sign_in(state_of(env, ShopState), email=body.email)
    env.emit("signed_in")
    return {"signed_in": True, "name": customer.full_name}


@router.get("/login", response_model=R.LoginHint)
def login_hint(env: EnvSessionDep) -> dict[str, Any]:
    """The remembered account shown on the sign-in page."""
    customer = accounts.account(state_of(env, ShopState))
    return {
        "remembered": {"name": customer.full_name, "email": customer.email},
        "signed_in": customer.signed_in,
    }


@router.post("/logout", response_model=R.SignedOutNow)
def logout(env: EnvSessionDep) -> dict[str, Any]:
    accounts.sign_out(state_of(env, ShopState))
    env.emit("signed_out")
    return {"signed_in": False}


@router.get("/home", response_model=R.Home)
def home(env: EnvSessionDep) -> dict[str, Any]:
    return catalog.home(state_of(env, ShopState))


@router.get("/categories", response_model=R.Categories)
def categories(env: EnvSessionDep) -> dict[str, Any]:
    return {"categories": catalog.home(state_of(env, ShopState))["categories"]}


@router.get("/products", response_model=R.SearchResults)
def products(
    env: EnvSessionDep,
    q: str = "",
    category: str | None = None,
    brand: Annotated[list[str] | None, Query()] = None,
    min_price: float | None = None,
    max_price: float | None = None,
    min_rating: float | None = None,
    in_stock: bool = False,
    sort: str = "relevance",
    page: int = 1,
) -> dict[str, Any]:
    """Search and browse: `q` words, one category, brands, price in dollars, rating, stock, sort."""
    query = catalog.SearchQuery(
        q=q,
        category=category or None,
        brands=tuple(brand or ()),
        min_price_cents=round(min_price * 100) if min_price is not None else None,
        max_price_cents=round(max_price * 100) if max_price is not None else None,
        min_rating=min_rating,
        in_stock=in_stock,
        sort=sort,
        page=page,
    )
    result = catalog.search(state_of(env, ShopState), query=query)
    if q:
        env.emit("search", query=q, category=category, sort=sort)
    return result


@router.get("/products/{product_id}", response_model=R.ProductDetail)
def product(product_id: str, env: EnvSessionDep) -> dict[str, Any]:
    result = catalog.product_detail(state_of(env, ShopState), product_id=product_id)
    env.emit("product_view", product_id=product_id)
    return result


@router.post("/products/{product_id}/reviews", status_code=201, response_model=R.ReviewPosted)
def post_review(product_id: str, body: PostReview, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    review = accounts.post_review(
        state,
        product_id=product_id,
        rating=body.rating,
        title=body.title,
        body=body.body,
        now=env.now(),
        new_id=env.new_id,
    )
    env.emit("review_posted", product_id=product_id, rating=review.rating)
    return {"review": review.model_dump(), "message": "Thanks! Your review has been posted."}


# ---------------------------------------------------------------- cart and wishlist


@router.get("/cart", response_model=R.Cart)
def get_cart(env: EnvSessionDep) -> dict[str, Any]:
    return carts.cart_view(signed_in(env))


@router.post("/cart/items", status_code=201, response_model=R.CartChanged)
def add_cart_item(body: AddToCart, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    item = carts.add_to_cart(
        state,
        product_id=body.product_id,
        variant_id=body.variant_id,
        quantity=body.quantity,
        now=env.now(),
        new_id=env.new_id,
    )
    env.emit("cart_add", product_id=item.product_id, variant_id=item.variant_id, quantity=body.quantity)
    return {"item": item.model_dump(), "cart": carts.cart_view(state), "message": "Added to your cart."}


@router.patch("/cart/items/{cart_item_id}", response_model=R.CartChanged | R.CartLineRemoved)
def update_cart_item(cart_item_id: str, body: SetQuantity, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    if body.quantity == 0:
        return remove_cart_item(cart_item_id, env)
    item = carts.set_cart_quantity(state, cart_item_id=cart_item_id, quantity=body.quantity)
    env.emit("cart_update", product_id=item.product_id, variant_id=item.variant_id, quantity=item.quantity)
    return {"item": item.model_dump(), "cart": carts.cart_view(state), "message": "Cart updated."}


@router.delete("/cart/items/{cart_item_id}", response_model=R.CartLineRemoved)
def remove_cart_item(cart_item_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    item = carts.remove_from_cart(state, cart_item_id=cart_item_id)
    env.emit("cart_remove", product_id=item.product_id, variant_id=item.variant_id)
    return {"removed": item.id, "cart": carts.cart_view(state), "message": "Removed from your cart."}


@router.get("/wishlist", response_model=R.Wishlist)
def get_wishlist(env: EnvSessionDep) -> dict[str, Any]:
    return carts.wishlist_view(signed_in(env))


@router.post("/wishlist", status_code=201, response_model=R.WishlistSaved)
def add_wishlist_item(body: AddToWishlist, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    entry = carts.add_to_wishlist(state, product_id=body.product_id, now=env.now(), new_id=env.new_id)
    env.emit("wishlist_add", product_id=entry.product_id)
    return {"item": entry.model_dump(), "message": "Saved to your wishlist."}


@router.delete("/wishlist/{wishlist_item_id}", response_model=R.Removed)
def remove_wishlist_item(wishlist_item_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    entry = carts.remove_from_wishlist(state, wishlist_item_id=wishlist_item_id)
    env.emit("wishlist_remove", product_id=entry.product_id)
    return {"removed": entry.id, "message": "Removed from your wishlist."}


# ---------------------------------------------------------------- checkout


@router.get("/checkout", response_model=R.CheckoutOptions)
def checkout_options(env: EnvSessionDep) -> dict[str, Any]:
    """What the checkout page offers: cart, addresses, cards and delivery options."""
    state = signed_in(env)
    now = env.now()
    return {
        "cart": carts.cart_view(state),
        "addresses": [a.model_dump() for a in state.addresses],
        "payment_methods": [accounts.payment_view(p, now) for p in state.payment_methods],
        "delivery_options": DELIVERY_OPTIONS,
    }


@router.post("/checkout/quote", response_model=R.Quote)
def quote(body: CheckoutQuote, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    priced = carts.checkout_quote(
        state, coupon_code=body.coupon_code or None, delivery_option=body.delivery_option, now=env.now()
    )
    if priced.coupon is not None:
        env.emit("coupon_applied", code=priced.coupon.code, discount_cents=priced.totals.discount_cents)
    return {
        **priced.totals.__dict__,
        "coupon": {"code": priced.coupon.code, "description": priced.coupon.description}
        if priced.coupon
        else None,
    }


@router.post("/orders", status_code=201, response_model=R.OrderChanged)
def place_order(body: PlaceOrder, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    placed = carts.place_order(
        state,
        address_id=body.address_id,
        payment_method_id=body.payment_method_id,
        delivery_option=body.delivery_option,
        coupon_code=body.coupon_code or None,
        now=env.now(),
        new_id=env.new_id,
    )
    order = placed.order
    env.emit(
        "order_placed",
        order_id=order.id,
        total_cents=order.total_cents,
        item_count=sum(i.quantity for i in placed.items),
        coupon_code=order.coupon_code,
        delivery_option=order.delivery_option,
    )
    return {"order": orders.order_detail(state, order_id=order.id, now=env.now()), "message": "Order placed."}


# ---------------------------------------------------------------- orders and returns


@router.get("/orders", response_model=R.Orders)
def list_orders(env: EnvSessionDep, status: str | None = None) -> dict[str, Any]:
    return orders.list_orders(signed_in(env), now=env.now(), status=status or None)


@router.get("/orders/{order_id}", response_model=R.OrderDetail)
def get_order(order_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    return orders.order_detail(state, order_id=order_id, now=env.now())


@router.post("/orders/{order_id}/cancel", response_model=R.OrderChanged)
def cancel_order(order_id: str, body: CancelOrder, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    order = orders.cancel_order(state, order_id=order_id, reason=body.reason, now=env.now())
    env.emit("order_cancelled", order_id=order.id, reason=order.cancel_reason)
    return {
        "order": orders.order_detail(state, order_id=order.id, now=env.now()),
        "message": "Your order was cancelled.",
    }


@router.post("/orders/{order_id}/returns", status_code=201, response_model=R.ReturnsRequested)
def request_return(order_id: str, body: RequestReturn, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    created = orders.request_return(
        state,
        order_id=order_id,
        lines=[(line.order_item_id, line.quantity) for line in body.items],
        reason=body.reason,
        resolution=body.resolution,
        comment=body.comment,
        now=env.now(),
        new_id=env.new_id,
    )
    for request in created:
        item = state.find("order_items", request.order_item_id)
        env.emit(
            "return_requested",
            order_id=request.order_id,
            order_item_id=request.order_item_id,
            product_id=item.product_id if item else None,
            quantity=request.quantity,
            reason=request.reason,
            resolution=request.resolution,
        )
    return {"returns": [orders.return_view(state, r) for r in created], "message": "Return requested."}


@router.get("/returns", response_model=R.Returns)
def list_returns(env: EnvSessionDep) -> dict[str, Any]:
    return orders.list_returns(signed_in(env))


# ---------------------------------------------------------------- addresses and cards


@router.get("/addresses", response_model=R.Addresses)
def list_addresses(env: EnvSessionDep) -> dict[str, Any]:
    return {"addresses": [a.model_dump() for a in signed_in(env).addresses]}


@router.post("/addresses", status_code=201, response_model=R.AddressChanged)
def add_address(body: AddressFields, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    fields = body.model_dump(exclude={"make_default"})
    address = accounts.create_address(state, fields=fields, make_default=body.make_default, new_id=env.new_id)
    env.emit("address_added", address_id=address.id, is_default=address.is_default)
    return {"address": address.model_dump(), "message": "Address saved."}


@router.patch("/addresses/{address_id}", response_model=R.AddressChanged)
def edit_address(address_id: str, body: AddressFields, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    fields = body.model_dump(exclude={"make_default"}, exclude_none=True)
    address = accounts.update_address(state, address_id=address_id, fields=fields)
    env.emit("address_updated", address_id=address.id)
    if body.make_default and not address.is_default:
        accounts.set_default_address(state, address_id=address.id)
        env.emit("default_address_set", address_id=address.id)
    return {"address": address.model_dump(), "message": "Address updated."}


@router.post("/addresses/{address_id}/default", response_model=R.AddressChanged)
def default_address(address_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    address = accounts.set_default_address(state, address_id=address_id)
    env.emit("default_address_set", address_id=address.id)
    return {"address": address.model_dump(), "message": f"{address.label} is now your default address."}


@router.delete("/addresses/{address_id}", response_model=R.Removed)
def delete_address(address_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    address = accounts.delete_address(state, address_id=address_id)
    env.emit("address_deleted", address_id=address.id)
    return {"removed": address.id, "message": "Address removed."}


@router.get("/payment-methods", response_model=R.PaymentMethods)
def list_payment_methods(env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    now = env.now()
    return {
        "payment_methods": [accounts.payment_view(p, now) for p in state.payment_methods],
        "current_year": now.year,
    }


@router.post("/payment-methods", status_code=201, response_model=R.PaymentChanged)
def add_payment_method(body: AddCard, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    card = accounts.NewCard(
        number=body.number,
        exp_month=body.exp_month,
        exp_year=body.exp_year,
        holder=body.holder,
        nickname=body.nickname,
    )
    method = accounts.add_payment_method(
        state, card=card, make_default=body.make_default, now=env.now(), new_id=env.new_id
    )
    env.emit(
        "payment_method_added", payment_method_id=method.id, last4=method.last4, is_default=method.is_default
    )
    return {"payment_method": accounts.payment_view(method, env.now()), "message": "Card saved."}


@router.post("/payment-methods/{payment_method_id}/default", response_model=R.PaymentChanged)
def default_payment_method(payment_method_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    method = accounts.set_default_payment(state, payment_method_id=payment_method_id)
    env.emit("default_payment_set", payment_method_id=method.id, last4=method.last4)
    return {"payment_method": accounts.payment_view(method, env.now()), "message": "Default card updated."}


@router.delete("/payment-methods/{payment_method_id}", response_model=R.Removed)
def delete_payment_method(payment_method_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    method = accounts.delete_payment_method(state, payment_method_id=payment_method_id)
    env.emit("payment_method_deleted", payment_method_id=method.id, last4=method.last4)
    return {"removed": method.id, "message": "Card removed."}


# ---------------------------------------------------------------- account and notifications


@router.get("/account", response_model=R.AccountPage)
def get_account(env: EnvSessionDep) -> dict[str, Any]:
    customer = accounts.account(signed_in(env))
    return {
        "account": customer.model_dump(exclude={"signed_in"}),
        "newsletter_frequencies": list(accounts.NEWSLETTER_FREQUENCIES),
    }


@router.patch("/account", response_model=R.AccountSaved)
def update_account(body: AccountChanges, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    changes = body.model_dump(exclude_none=True)
    customer = accounts.update_account(state, changes=changes)
    env.emit("account_updated", fields=sorted(changes))
    return {"account": customer.model_dump(exclude={"signed_in"}), "message": "Your settings were saved."}


@router.get("/notifications", response_model=R.Notifications)
def list_notifications(env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    ordered = sorted(state.notifications, key=lambda n: (n.created_at, n.id), reverse=True)
    return {
        "notifications": [n.model_dump() for n in ordered],
        "unread": sum(1 for n in ordered if not n.is_read),
    }


@router.post("/notifications/{notification_id}/read", response_model=R.NotificationRead)
def read_notification(notification_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = signed_in(env)
    note = accounts.mark_notification_read(state, notification_id=notification_id)
    env.emit("notification_read", notification_id=note.id)
    return {"notification": note.model_dump()}


@router.post("/notifications/read-all", response_model=R.AllRead)
def read_all_notifications(env: EnvSessionDep) -> dict[str, Any]:
    changed = accounts.mark_all_read(signed_in(env))
    for note in changed:
        env.emit("notification_read", notification_id=note.id)
    return {"marked": len(changed), "message": "All notifications marked as read."}
