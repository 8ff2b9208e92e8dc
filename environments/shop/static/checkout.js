/* Checkout: address, delivery, payment, promo code, review and place the order. */
(function () {
  "use strict";
  const S = window.Shop;
  const { api, esc, money, productImage, errorPanel, loading, toast, busy, reportError, main, BASE } = S;
  let data = null;
  let coupon = null;

  function addressText(a) {
    return `${esc(a.full_name)}, ${esc(a.line1)}${a.line2 ? ", " + esc(a.line2) : ""}, ${esc(a.city)}, ${esc(a.region)} ${esc(a.postal_code)}`;
  }

  function selected(name) {
    const input = main.querySelector(`input[name="${name}"]:checked`);
    return input ? input.value : null;
  }

  function render() {
    const addresses = data.addresses.map((a) => `<label class="choice"><input type="radio" name="address" value="${esc(a.id)}"${a.is_default ? " checked" : ""}>
      <span><strong>${esc(a.label)}</strong>${a.is_default ? ' <span class="tag">Default</span>' : ""}<br><span class="small">${addressText(a)}</span></span></label>`).join("");
    const delivery = Object.entries(data.delivery_options).map(([key, label], i) => `<label class="choice"><input type="radio" name="delivery" value="${key}"${i === 0 ? " checked" : ""}>
      <span><strong>${esc(label)}</strong><br><span class="small muted">${key === "express" ? "$12.99" : "FREE on orders over $35, otherwise $5.99"}</span></span></label>`).join("");
    const cards = data.payment_methods.map((p) => `<label class="choice"><input type="radio" name="payment" value="${esc(p.id)}"${p.is_default && !p.expired ? " checked" : ""}${p.expired ? " disabled" : ""}>
      <span><strong>${esc(p.label)}</strong>${p.nickname ? ` <span class="muted small">(${esc(p.nickname)})</span>` : ""}${p.is_default ? ' <span class="tag">Default</span>' : ""}${p.expired ? ' <span class="tag danger">Expired</span>' : ""}<br>
      <span class="small muted">${esc(p.holder)} · expires ${String(p.exp_month).padStart(2, "0")}/${p.exp_year}</span></span></label>`).join("");
    const lines = data.cart.items.map((l) => `<div class="line" style="grid-template-columns:70px 1fr auto">
      ${productImage(l.product.image, l.product.name)}
      <div><div class="name">${esc(l.product.name)}</div><div class="opts">${[l.variant && l.variant.color, l.variant && l.variant.size ? "Size " + l.variant.size : ""].filter(Boolean).map(esc).join(" · ")}</div><div class="small">Qty: ${l.quantity}</div></div>
      <div><strong>${money(l.line_total_cents)}</strong></div></div>`).join("");
    main.innerHTML = `<h1>Checkout</h1><div class="two-col">
      <div>
        <section class="panel"><h2>1. Shipping address</h2><div role="radiogroup" aria-label="Shipping address">${addresses}</div>
          <a class="small" href="${BASE}/account/addresses?return=checkout">Add or edit addresses</a></section>
        <section class="panel"><h2>2. Delivery</h2><div role="radiogroup" aria-label="Delivery option">${delivery}</div></section>
        <section class="panel"><h2>3. Payment method</h2><div role="radiogroup" aria-label="Payment method">${cards}</div>
          <a class="small" href="${BASE}/account/payments?return=checkout">Add a card</a></section>
        <section class="panel"><h2>4. Review items</h2>${lines}</section>
      </div>
      <aside class="panel" style="position:sticky;top:120px">
        <button type="button" class="btn btn-primary btn-block btn-lg" id="place-order">Place your order</button>
        <p class="small muted">By placing your order you agree to Brightcart's conditions of use.</p>
        <form id="coupon-form" class="field" style="margin-top:8px">
          <label for="coupon-code">Promo code</label>
          <div class="row" style="flex-wrap:nowrap"><input id="coupon-code" class="input" style="flex:1;min-width:0" placeholder="Enter code" autocomplete="off"><button class="btn" type="submit" id="apply-coupon">Apply</button></div>
          <div id="coupon-status" class="small" aria-live="polite"></div>
        </form>
        <h3>Order summary</h3>
        <div id="summary"><div class="skeleton" style="height:120px"></div></div>
      </aside></div>`;
    main.querySelectorAll('input[name="delivery"]').forEach((r) => r.addEventListener("change", () => refreshQuote()));
    document.getElementById("coupon-form").addEventListener("submit", (e) => { e.preventDefault(); applyCoupon(); });
    document.getElementById("place-order").addEventListener("click", placeOrder);
    refreshQuote();
  }

  function summaryHtml(q) {
    return `<div class="summary-row"><span>Items</span><span>${money(q.subtotal_cents)}</span></div>
      ${q.discount_cents ? `<div class="summary-row" style="color:var(--ok)"><span>Promo (${esc(q.coupon ? q.coupon.code : "")})</span><span>−${money(q.discount_cents)}</span></div>` : ""}
      <div class="summary-row"><span>Shipping</span><span>${q.shipping_cents ? money(q.shipping_cents) : "FREE"}</span></div>
      <div class="summary-row"><span>Estimated tax</span><span>${money(q.tax_cents)}</span></div>
      <div class="summary-row total"><span>Order total</span><span id="order-total">${money(q.total_cents)}</span></div>`;
  }

  async function refreshQuote() {
    const summary = document.getElementById("summary");
    try {
      const q = await api("POST", "/checkout/quote", { delivery_option: selected("delivery") || "standard", coupon_code: coupon });
      summary.innerHTML = summaryHtml(q);
    } catch (err) {
      if (coupon && err.status === 400) {
        coupon = null;
        document.getElementById("coupon-status").innerHTML = `<span style="color:var(--danger)">${esc(err.detail)}</span>`;
        return refreshQuote();
      }
      errorPanel(summary, err, refreshQuote);
    }
  }

  async function applyCoupon() {
    const code = document.getElementById("coupon-code").value.trim();
    const status = document.getElementById("coupon-status");
    if (!code) { status.textContent = "Enter a promo code."; return; }
    await busy(document.getElementById("apply-coupon"), async () => {
      try {
        const q = await api("POST", "/checkout/quote", { delivery_option: selected("delivery") || "standard", coupon_code: code });
        if (!q.coupon) throw new S.ApiError(400, `'${code}' could not be applied.`);
        coupon = q.coupon.code;
        status.innerHTML = `<span style="color:var(--ok)">✓ ${esc(q.coupon.code)} applied: ${esc(q.coupon.description)}</span>`;
        document.getElementById("summary").innerHTML = summaryHtml(q);
      } catch (err) {
        if (err.status === 400) status.innerHTML = `<span style="color:var(--danger)">${esc(err.detail)}</span>`;
        else reportError(err, applyCoupon);
      }
    });
  }

  async function placeOrder(event) {
    const payload = {
      address_id: selected("address"),
      payment_method_id: selected("payment"),
      delivery_option: selected("delivery") || "standard",
      coupon_code: coupon,
    };
    if (!payload.address_id) { toast("Choose a shipping address.", "error"); return; }
    if (!payload.payment_method_id) { toast("Choose a payment method.", "error"); return; }
    await busy(event.target, async () => {
      try {
        const result = await api("POST", "/orders", payload);
        if (result.order && result.order.id) {
          location.href = `${BASE}/orders/${encodeURIComponent(result.order.id)}/confirmation`;
        } else {
          toast(result.toast || result.message || "Order placed.", "success");
          setTimeout(() => { location.href = BASE + "/orders"; }, 1200);
        }
      } catch (err) {
        reportError(err, () => placeOrder(event));
      }
    });
  }

  async function load() {
    loading(main, "Preparing checkout…");
    try {
      data = await api("GET", "/checkout");
      if (!data.cart.items.length) {
        main.innerHTML = `<div class="panel empty"><h1>Your cart is empty</h1><p>Add something to your cart before checking out.</p><a class="btn btn-primary" href="${BASE}/">Continue shopping</a></div>`;
        return;
      }
      render();
    } catch (err) {
      errorPanel(main, err, load);
    }
  }
  load();
})();
