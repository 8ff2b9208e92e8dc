/* Wishlist: saved products, add to cart, remove. */
(function () {
  "use strict";
  const S = window.Shop;
  const { api, esc, money, date, productImage, priceHtml, stockHtml, stars, errorPanel, loading, toast, busy, reportError, main, BASE } = S;

  function itemHtml(entry) {
    const p = entry.product;
    const href = `${BASE}/p/${encodeURIComponent(p.id)}`;
    let action;
    if (!p.in_stock) action = `<button type="button" class="btn btn-block" disabled>Out of stock</button>`;
    else if (p.has_options) action = `<a class="btn btn-primary btn-block" href="${href}">Choose options</a>`;
    else action = `<button type="button" class="btn btn-primary btn-block add-to-cart" data-icon="cart">Add to cart</button>`;
    return `<article class="product-card" data-entry="${esc(entry.id)}" data-product="${esc(p.id)}" aria-label="${esc(p.name)}">
      <a class="cover" href="${href}" tabindex="-1" aria-hidden="true">${productImage(p.image, p.name)}</a>
      <div class="body"><span class="brand">${esc(p.brand)}</span><a class="title" href="${href}">${esc(p.name)}</a>
        <div class="rating-line">${stars(p.rating)}<span>${p.rating.toFixed(1)}</span></div>
        ${priceHtml(p)}${stockHtml(p)}<div class="small muted">Added ${date(entry.added_at)}</div>
        <div style="margin-top:8px;display:flex;flex-direction:column;gap:6px">${action}<button type="button" class="btn btn-danger btn-block remove-entry" data-icon="trash">Remove</button></div>
      </div></article>`;
  }

  function render(data) {
    if (!data.items.length) {
      main.innerHTML = `<div class="panel empty"><h1>Your wishlist is empty</h1><p>Tap the heart on any product to save it here for later.</p><a class="btn btn-primary" href="${BASE}/">Discover products</a></div>`;
      return;
    }
    main.innerHTML = `<h1>Your wishlist</h1><p class="muted">${data.items.length} saved item${data.items.length === 1 ? "" : "s"}</p><div class="grid">${data.items.map(itemHtml).join("")}</div>`;
    main.querySelectorAll("[data-entry]").forEach((card) => {
      const add = card.querySelector(".add-to-cart");
      if (add) add.addEventListener("click", () => addToCart(card, add));
      card.querySelector(".remove-entry").addEventListener("click", (e) => remove(card, e.currentTarget));
    });
  }

  function addToCart(card, button) {
    const attempt = () => busy(button, async () => {
      try {
        const result = await api("POST", "/cart/items", { product_id: card.dataset.product, quantity: 1 });
        toast(result.toast || result.message || "Added to your cart.", "success", { label: "View cart", run: () => { location.href = BASE + "/cart"; } });
        S.refreshHeader();
      } catch (err) {
        reportError(err, attempt);
      }
    });
    attempt();
  }

  function remove(card, button) {
    const attempt = () => busy(button, async () => {
      try {
        const result = await api("DELETE", `/wishlist/${encodeURIComponent(card.dataset.entry)}`);
        toast(result.toast || result.message || "Removed from your wishlist.", "success");
        await load();
      } catch (err) {
        reportError(err, attempt);
      }
    });
    attempt();
  }

  async function load() {
    if (!main.querySelector(".grid")) loading(main, "Loading your wishlist…");
    try {
      render(await api("GET", "/wishlist"));
    } catch (err) {
      errorPanel(main, err, load);
    }
  }
  load();
})();
