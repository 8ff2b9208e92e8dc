/* Cart page: change quantities, remove or save items for later, go to checkout. */
(function () {
  "use strict";
  const S = window.Shop;
  const { api, esc, money, productImage, errorPanel, loading, toast, reportError, main, BASE } = S;

  function optionText(variant) {
    if (!variant) return "";
    return [variant.color ? `Colour: ${esc(variant.color)}` : "", variant.size ? `Size: ${esc(variant.size)}` : ""].filter(Boolean).join(" · ");
  }

  function lineHtml(line) {
    const href = `${BASE}/p/${encodeURIComponent(line.product.id)}`;
    const stock = line.available <= 0 ? '<span class="stock-out">Out of stock</span>' : (line.available <= 5 ? `<span class="stock-low">Only ${line.available} left</span>` : '<span class="stock-ok">In stock</span>');
    return `<div class="line" data-line="${esc(line.id)}">
      <a href="${href}" tabindex="-1" aria-hidden="true">${productImage(line.product.image, line.product.name)}</a>
      <div>
        <a class="name" href="${href}">${esc(line.product.name)}</a>
        <div class="opts">${esc(line.product.brand)}${line.variant ? " · " + optionText(line.variant) : ""}</div>
        <div>${stock}</div>
        <div class="row" style="margin-top:8px">
          <div class="stepper" role="group" aria-label="Quantity of ${esc(line.product.name)}">
            <button type="button" class="qty-dec" aria-label="Decrease quantity">−</button>
            <output aria-live="polite">${line.quantity}</output>
            <button type="button" class="qty-inc" aria-label="Increase quantity">+</button>
          </div>
          <button type="button" class="btn-link remove-line" data-icon="trash">Delete</button>
          <button type="button" class="btn-link save-line" data-icon="heart">Save for later</button>
        </div>
      </div>
      <div class="price">${money(line.line_total_cents)}${line.quantity > 1 ? `<div class="small muted" style="font-weight:400">${money(line.unit_price_cents)} each</div>` : ""}</div>
    </div>`;
  }

  function render(cart) {
    if (!cart.items.length) {
      main.innerHTML = `<div class="panel empty"><h1>Your cart is empty</h1><p>Your shopping cart is waiting. Give it purpose: fill it with everyday essentials and more.</p><a class="btn btn-primary" href="${BASE}/">Continue shopping</a></div>`;
      return;
    }
    const items = cart.count === 1 ? "1 item" : `${cart.count} items`;
    main.innerHTML = `<div class="two-col">
      <section class="panel"><h1>Shopping cart</h1><div id="lines">${cart.items.map(lineHtml).join("")}</div>
        <div style="text-align:right;font-size:1.05rem;border-top:1px solid var(--line);padding-top:12px">Subtotal (${items}): <strong>${money(cart.subtotal_cents)}</strong></div></section>
      <aside class="panel"><div style="font-size:1.05rem;margin-bottom:10px">Subtotal (${items}): <strong>${money(cart.subtotal_cents)}</strong></div>
        ${cart.subtotal_cents >= 3500 ? '<p class="small" style="color:var(--ok)">Your order qualifies for FREE standard shipping.</p>' : `<p class="small muted">Add ${money(3500 - cart.subtotal_cents)} more for FREE standard shipping.</p>`}
        <a class="btn btn-primary btn-block btn-lg" href="${BASE}/checkout">Proceed to checkout</a></aside>
    </div>`;
    const byId = Object.fromEntries(cart.items.map((l) => [l.id, l]));
    main.querySelectorAll("[data-line]").forEach((row) => {
      const line = byId[row.dataset.line];
      row.querySelector(".qty-inc").addEventListener("click", () => setQuantity(line, line.quantity + 1));
      row.querySelector(".qty-dec").addEventListener("click", () => setQuantity(line, line.quantity - 1));
      row.querySelector(".remove-line").addEventListener("click", () => remove(line));
      row.querySelector(".save-line").addEventListener("click", () => saveForLater(line));
    });
  }

  async function afterWrite(result, fallback) {
    toast(result.toast || result.message || fallback, "success");
    if (result.cart) render(result.cart);
    else await load();
    S.refreshHeader();
  }

  async function setQuantity(line, quantity) {
    if (quantity < 1) return remove(line);
    try {
      const result = await api("PATCH", `/cart/items/${encodeURIComponent(line.id)}`, { quantity });
      await afterWrite(result, "Cart updated.");
    } catch (err) {
      reportError(err, () => setQuantity(line, quantity));
    }
  }

  async function remove(line) {
    try {
      const result = await api("DELETE", `/cart/items/${encodeURIComponent(line.id)}`);
      await afterWrite(result, `${line.product.name} was removed from your cart.`);
    } catch (err) {
      reportError(err, () => remove(line));
    }
  }

  async function saveForLater(line) {
    try {
      await api("POST", "/wishlist", { product_id: line.product.id });
      const result = await api("DELETE", `/cart/items/${encodeURIComponent(line.id)}`);
      await afterWrite({ cart: result.cart }, `${line.product.name} was moved to your wishlist.`);
    } catch (err) {
      reportError(err, () => saveForLater(line));
    }
  }

  async function load() {
    if (!main.querySelector("#lines")) loading(main, "Loading your cart…");
    try {
      render(await api("GET", "/cart"));
    } catch (err) {
      errorPanel(main, err, load);
    }
  }
  load();
})();
