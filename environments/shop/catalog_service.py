"""Reading the catalogue: product cards, search with filters and sorting, product detail, reviews.

Pure functions over `ShopState`; the API layer turns them into JSON responses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from humantrace.environments.shop.models import Product, ShopState
from humantrace.environments.sitekit import SiteError, page_of

SORTS = {
    "relevance": "Featured",
    "price_asc": "Price: low to high",
    "price_desc": "Price: high to low",
    "rating": "Avg. customer review",
    "reviews": "Most reviewed",
    "newest": "Newest arrivals",
}


@dataclass(frozen=True)
class SearchQuery:
    """What the search and category pages ask for (all optional)."""

    q: str = ""
    category: str | None = None  # slug
    brands: tuple[str, ...] = ()
    min_price_cents: int | None = None
    max_price_cents: int | None = None
    min_rating: float | None = None
    in_stock: bool = False
    sort: str = "relevance"
    page: int = 1
    per_page: int = 24


def product_card(state: ShopState, product: Product) -> dict[str, Any]:
    """The short form of a product shown in grids and lists."""
    category = next((c for c in state.categories if c.id == product.category_id), None)
    has_options = any(v.product_id == product.id for v in state.variants)
    return {
        "id": product.id,
        "name": product.name,
        "brand": product.brand,
        "price_cents": product.price_cents,
        "list_price_cents": product.list_price_cents,
        "rating": product.rating,
        "review_count": product.review_count,
        "in_stock": product.stock > 0,
        "low_stock": 0 < product.stock <= 5,
        "has_options": has_options,
        "image": {"hue": product.image_hue, "icon": product.image_icon},
        "category": {"slug": category.slug, "name": category.name} if category else None,
    }


_WORD = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _relevance(state: ShopState, product: Product, words: list[str]) -> float | None:
    """None when some query word matches nothing about the product."""
    category = next((c.name for c in state.categories if c.id == product.category_id), "")
    fields = (
        (set(_tokens(product.name)), 3.0),
        (set(_tokens(product.brand)), 2.0),
        (set(_tokens(category)), 1.0),
        (set(_tokens(product.description + " " + " ".join(product.features))), 0.5),
    )
    score = 0.0
    for word in words:
        best = 0.0
        for vocabulary, weight in fields:
            if word in vocabulary or any(token.startswith(word) for token in vocabulary if len(word) >= 3):
                best = max(best, weight)
        if best == 0.0:
            return None
        score += best
    return score


def search(state: ShopState, *, query: SearchQuery) -> dict[str, Any]:
    """Products matching the query, filtered, sorted and paged, with the facets to refine them."""
    category = None
    if query.category:
        category = next((c for c in state.categories if c.slug == query.category), None)
        if category is None:
            raise SiteError(404, f"There is no category called '{query.category}'.")
    words = _tokens(query.q)
    scored: list[tuple[float, Product]] = []
    for product in state.products:
        if category is not None and product.category_id != category.id:
            continue
        relevance = _relevance(state, product, words) if words else 0.0
        if relevance is None:
            continue
        scored.append((relevance, product))
    facets_pool = [p for _, p in scored]
    if query.brands:
        scored = [(r, p) for r, p in scored if p.brand in query.brands]
    if query.min_price_cents is not None:
        scored = [(r, p) for r, p in scored if p.price_cents >= query.min_price_cents]
    if query.max_price_cents is not None:
        scored = [(r, p) for r, p in scored if p.price_cents <= query.max_price_cents]
    if query.min_rating is not None:
        scored = [(r, p) for r, p in scored if p.rating >= query.min_rating]
    if query.in_stock:
        scored = [(r, p) for r, p in scored if p.stock > 0]
    order = {
        "relevance": lambda item: (-item[0], not item[1].featured, -item[1].review_count, item[1].id),
        "price_asc": lambda item: (item[1].price_cents, item[1].id),
        "price_desc": lambda item: (-item[1].price_cents, item[1].id),
        "rating": lambda item: (-item[1].rating, -item[1].review_count, item[1].id),
        "reviews": lambda item: (-item[1].review_count, item[1].id),
        "newest": lambda item: (item[1].created_at, item[1].id),
    }
    if query.sort not in order:
        raise SiteError(400, f"Unknown sort order '{query.sort}'.")
    scored.sort(key=order[query.sort])
    if query.sort == "newest":
        scored.reverse()
    per_page = max(1, min(query.per_page, 60))
    window, page, pages = page_of(scored, query.page, per_page)
    return {
        "query": query.q,
        "category": {"slug": category.slug, "name": category.name, "description": category.description}
        if category
        else None,
        "sort": query.sort,
        "sorts": SORTS,
        "total": len(scored),
        "page": page,
        "pages": pages,
        "items": [product_card(state, p) for _, p in window],
        "facets": {
            "brands": sorted({p.brand for p in facets_pool}),
            "price_max_cents": max((p.price_cents for p in facets_pool), default=0),
        },
    }


def product_detail(state: ShopState, *, product_id: str) -> dict[str, Any]:
    """Everything the product page shows: options with stock, reviews, related items."""
    product = state.find("products", product_id)
    if product is None:
        raise SiteError(404, "This product is no longer available.")
    variants = [v for v in state.variants if v.product_id == product.id]
    reviews = sorted(
        (r for r in state.reviews if r.product_id == product.id),
        key=lambda r: (r.created_at, r.id),
        reverse=True,
    )
    related = [p for p in state.products if p.category_id == product.category_id and p.id != product.id]
    related.sort(key=lambda p: (-p.rating, p.id))
    card = product_card(state, product)
    return {
        **card,
        "description": product.description,
        "features": product.features,
        "stock": product.stock,
        "returnable": product.returnable,
        "sizes": _ordered_unique(v.size for v in variants if v.size),
        "colors": _ordered_unique(v.color for v in variants if v.color),
        "variants": [
            {"id": v.id, "size": v.size, "color": v.color, "stock": v.stock, "sku": v.sku} for v in variants
        ],
        "reviews": [
            {
                "id": r.id,
                "author": r.author,
                "mine": r.author_is_me,
                "rating": r.rating,
                "title": r.title,
                "body": r.body,
                "created_at": r.created_at,
                "verified_purchase": r.verified_purchase,
                "helpful_count": r.helpful_count,
            }
            for r in reviews
        ],
        "in_wishlist": any(w.product_id == product.id for w in state.wishlist_items),
        "related": [product_card(state, p) for p in related[:4]],
    }


def _ordered_unique(values: Any) -> list[str]:
    seen: list[str] = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen


def home(state: ShopState) -> dict[str, Any]:
    """The home page: categories, featured products, deals and new arrivals."""
    featured = [p for p in state.products if p.featured]
    deals = sorted(
        (p for p in state.products if p.list_price_cents and p.stock > 0),
        key=lambda p: (p.price_cents - (p.list_price_cents or 0), p.id),
    )
    newest = sorted(state.products, key=lambda p: (p.created_at, p.id), reverse=True)
    return {
        "categories": [
            {"id": c.id, "slug": c.slug, "name": c.name, "description": c.description}
            for c in sorted(state.categories, key=lambda c: c.position)
        ],
        "featured": [product_card(state, p) for p in featured[:8]],
        "deals": [product_card(state, p) for p in deals[:4]],
        "new_arrivals": [product_card(state, p) for p in newest[:4]],
    }
