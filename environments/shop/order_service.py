"""Orders after checkout: listing, detail, cancelling and returns.

Rules a shopper meets: only an order still `processing` can be cancelled; only lines of a
`delivered` order can be returned, within 30 days of delivery, up to the quantity not yet returned,
and not for final-sale items.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from humantrace.environments.shop.cart_service import NewId
from humantrace.environments.shop.catalog_service import product_card
from humantrace.environments.shop.models import Order, OrderItem, ReturnRequest, ShopState
from humantrace.environments.shop.pricing import RETURN_WINDOW_DAYS
from humantrace.environments.shop.seed import iso, parse_iso
from humantrace.environments.sitekit import SiteError

CANCEL_REASONS = (
    "Ordered by mistake",
    "Found a better price",
    "Delivery takes too long",
    "Need to change the shipping address",
    "No longer needed",
)
RETURN_REASONS = (
    "Doesn't fit",
    "Arrived damaged",
    "Not as described",
    "Wrong item sent",
    "Changed my mind",
    "No longer needed",
    "Product recall",
)
RESOLUTIONS = ("refund", "replacement")


def _order(state: ShopState, order_id: str) -> Order:
    order = state.find("orders", order_id)
    if order is None:
        raise SiteError(404, "We couldn't find that order.")
    return order


def returned_quantity(state: ShopState, order_item_id: str) -> int:
    """How many units of an order line already have a return request."""
    return sum(r.quantity for r in state.returns if r.order_item_id == order_item_id)


def return_deadline(order: Order) -> datetime | None:
    """The last moment a delivered order can be returned."""
    if order.delivered_at is None:
        return None
    return parse_iso(order.delivered_at) + timedelta(days=RETURN_WINDOW_DAYS)


def _line_view(state: ShopState, item: OrderItem, order: Order, now: datetime) -> dict[str, Any]:
    product = state.find("products", item.product_id)
    already = returned_quantity(state, item.id)
    deadline = return_deadline(order)
    returnable = (
        order.status == "delivered"
        and deadline is not None
        and now <= deadline
        and product is not None
        and product.returnable
        and already < item.quantity
    )
    return {
        "id": item.id,
        "product": product_card(state, product) if product else None,
        "product_id": item.product_id,
        "name": item.product_name,
        "size": item.size,
        "color": item.color,
        "quantity": item.quantity,
        "unit_price_cents": item.unit_price_cents,
        "returned_quantity": already,
        "final_sale": product is not None and not product.returnable,
        "can_return": returnable,
    }


def order_view(state: ShopState, order: Order, *, now: datetime, detail: bool = False) -> dict[str, Any]:
    """An order as the orders list (summary) or the order page (`detail`) shows it."""
    lines = [_line_view(state, i, order, now) for i in state.order_items if i.order_id == order.id]
    deadline = return_deadline(order)
    view: dict[str, Any] = {
        "id": order.id,
        "number": order.number,
        "status": order.status,
        "placed_at": order.placed_at,
        "shipped_at": order.shipped_at,
        "delivered_at": order.delivered_at,
        "cancelled_at": order.cancelled_at,
        "total_cents": order.total_cents,
        "ship_to": order.ship_to,
        "items": lines,
        "can_cancel": order.status == "processing",
        "can_return": any(line["can_return"] for line in lines),
        "return_by": iso(deadline) if deadline else None,
    }
    if detail:
        view.update(
            {
                "cancel_reason": order.cancel_reason,
                "payment_label": order.payment_label,
                "delivery_option": order.delivery_option,
                "coupon_code": order.coupon_code,
                "subtotal_cents": order.subtotal_cents,
                "shipping_cents": order.shipping_cents,
                "discount_cents": order.discount_cents,
                "tax_cents": order.tax_cents,
                "returns": [return_view(state, r) for r in state.returns if r.order_id == order.id],
                "cancel_reasons": list(CANCEL_REASONS),
                "return_reasons": list(RETURN_REASONS),
            }
        )
    return view


def list_orders(state: ShopState, *, now: datetime, status: str | None = None) -> dict[str, Any]:
    """Orders newest first, optionally only one status."""
    orders = sorted(state.orders, key=lambda o: (o.placed_at, o.id), reverse=True)
    if status:
        orders = [o for o in orders if o.status == status]
    return {"orders": [order_view(state, o, now=now) for o in orders]}


def order_detail(state: ShopState, *, order_id: str, now: datetime) -> dict[str, Any]:
    """One order with its money lines, returns and the reasons the forms offer."""
    return order_view(state, _order(state, order_id), now=now, detail=True)


def cancel_order(state: ShopState, *, order_id: str, reason: str, now: datetime) -> Order:
    """Cancel an order that has not shipped yet and put its stock back."""
    order = _order(state, order_id)
    if order.status == "cancelled":
        raise SiteError(409, f"Order {order.number} is already cancelled.")
    if order.status != "processing":
        raise SiteError(
            409,
            f"Order {order.number} has already shipped and can't be cancelled. You can return it once it arrives.",
        )
    if reason not in CANCEL_REASONS:
        raise SiteError(400, "Choose a reason for cancelling.")
    order.status = "cancelled"
    order.cancelled_at = iso(now)
    order.cancel_reason = reason
    for item in state.order_items:
        if item.order_id != order.id:
            continue
        product = state.find("products", item.product_id)
        variant = state.find("variants", item.variant_id) if item.variant_id else None
        if variant is not None:
            variant.stock += item.quantity
        if product is not None:
            product.stock += item.quantity
    return order


def request_return(
    state: ShopState,
    *,
    order_id: str,
    lines: list[tuple[str, int]],
    reason: str,
    resolution: str,
    comment: str,
    now: datetime,
    new_id: NewId,
) -> list[ReturnRequest]:
    """One return request per (order line, quantity); all lines are checked before any is created."""
    order = _order(state, order_id)
    if not lines:
        raise SiteError(400, "Select at least one item to return.")
    if reason not in RETURN_REASONS:
        raise SiteError(400, "Choose a reason for the return.")
    if resolution not in RESOLUTIONS:
        raise SiteError(400, "Choose a refund or a replacement.")
    if order.status != "delivered":
        raise SiteError(409, f"Order {order.number} hasn't been delivered yet, so it can't be returned.")
    deadline = return_deadline(order)
    if deadline is None or now > deadline:
        raise SiteError(409, f"The return window for order {order.number} has closed.")
    checked: list[tuple[OrderItem, int]] = []
    for order_item_id, quantity in lines:
        item = state.find("order_items", order_item_id)
        if item is None or item.order_id != order.id:
            raise SiteError(400, "That item is not part of this order.")
        product = state.find("products", item.product_id)
        if product is not None and not product.returnable:
            raise SiteError(409, f"{item.product_name} is final sale and can't be returned.")
        left = item.quantity - returned_quantity(state, item.id)
        if quantity < 1 or quantity > left:
            raise SiteError(409, f"You can return at most {left} of {item.product_name}.")
        checked.append((item, quantity))
    created: list[ReturnRequest] = []
    for item, quantity in checked:
        request = ReturnRequest(
            id=new_id("rt"),
            order_id=order.id,
            order_item_id=item.id,
            quantity=quantity,
            reason=reason,
            comment=comment.strip(),
            resolution=resolution,
            status="requested",
            refund_cents=item.unit_price_cents * quantity if resolution == "refund" else 0,
            created_at=iso(now),
        )
        state.returns.append(request)
        created.append(request)
    return created


def return_view(state: ShopState, request: ReturnRequest) -> dict[str, Any]:
    """A return request with the name of what is being returned."""
    item = state.find("order_items", request.order_item_id)
    order = state.find("orders", request.order_id)
    return {
        "id": request.id,
        "order_id": request.order_id,
        "order_number": order.number if order else None,
        "item_name": item.product_name if item else None,
        "size": item.size if item else None,
        "color": item.color if item else None,
        "quantity": request.quantity,
        "reason": request.reason,
        "comment": request.comment,
        "resolution": request.resolution,
        "status": request.status,
        "refund_cents": request.refund_cents,
        "created_at": request.created_at,
    }


def list_returns(state: ShopState) -> dict[str, Any]:
    """Every return request, newest first."""
    ordered = sorted(state.returns, key=lambda r: (r.created_at, r.id), reverse=True)
    return {"returns": [return_view(state, r) for r in ordered]}
