/* Orders list, order detail (cancel) and the order confirmation page. */
(function () {
  "use strict";
  const S = window.Shop;
  const { api, esc, money, date, productImage, errorPanel, loading, toast, busy, reportError, main, BASE, params } = S;
  const page = document.body.dataset.page;
  const orderId = document.body.dataset.order;
  const STATUS = {
    processing: ["Processing", "blue"], shipped: ["Shipped", "warn"], delivered: ["Delivered", "ok"], cancelled: ["Cancelled", "danger"],
  };

  function statusTag(status) {
    const [label, kind] = STATUS[status] || [status, ""];
    return `<span class="tag ${kind}">${esc(label)}</span>`;
  }

  function options(item) {
    return [item.product && item.product.brand, item.color, item.size ? "Size " + item.size : ""].filter(Boolean).map(esc).join(" · ");
  }

  function itemRow(item, extra) {
    const href = `${BASE}/p/${encodeURIComponent(item.product_id)}`;
    return `<div class="line" style="grid-template-columns:80px 1fr auto">
      <a href="${href}" tabindex="-1" aria-hidden="true">${productImage(item.product && item.product.image, item.name)}</a>
      <div><a class="name" href="${href}">${esc(item.name)}</a>
        <div class="opts">${options(item)}${options(item) ? " · " : ""}Qty ${item.quantity}</div>
        ${item.returned_quantity ? `<div class="small"><span class="tag">Return requested for ${item.returned_quantity}</span></div>` : ""}
        ${item.final_sale ? '<div class="small muted">Final sale: not returnable</div>' : ""}
        ${extra || ""}</div>
      <div><strong>${money(item.unit_price_cents * item.quantity)}</strong></div></div>`;
  }

  function orderCard(order) {
    const detail = `${BASE}/orders/${encodeURIComponent(order.id)}`;
    let note = "";
    if (order.status === "delivered") note = `Delivered ${date(order.delivered_at)}`;
    else if (order.status === "shipped") note = "On the way";
    else if (order.status === "processing") note = "Preparing for shipment";
    else note = `Cancelled ${date(order.cancelled_at)}`;
    return `<article class="order-card" aria-label="Order ${esc(order.number)}">
      <header><div>Order placed<strong>${date(order.placed_at)}</strong></div><div>Total<strong>${money(order.total_cents)}</strong></div>
        <div>Ship to<strong>${esc(order.ship_to.split(",")[0])}</strong></div><div style="margin-left:auto;text-align:right">Order # ${esc(order.number)}<strong><a href="${detail}">View order details</a></strong></div></header>
      <div class="content"><div class="row" style="margin:10px 0">${statusTag(order.status)} <strong>${esc(note)}</strong>
        <span class="spacer"></span>${order.can_return ? `<a class="btn" href="${detail}/return">Return items</a>` : ""}${order.can_cancel ? `<a class="btn" href="${detail}">Cancel order</a>` : ""}</div>
        ${order.items.map((i) => itemRow(i)).join("")}</div></article>`;
  }

  async function loadList() {
    const status = params().get("status") || "";
    const tabs = [["", "All orders"], ["processing", "Processing"], ["shipped", "Shipped"], ["delivered", "Delivered"], ["cancelled", "Cancelled"]]
      .map(([key, label]) => `<a href="${BASE}/orders${key ? "?status=" + key : ""}"${key === status ? ' aria-current="page"' : ""}>${label}</a>`).join("");
    main.innerHTML = `<div class="row"><h1>Your orders</h1><span class="spacer"></span><a href="${BASE}/returns">Your returns</a></div><nav class="tabs" aria-label="Filter orders">${tabs}</nav><div id="orders"></div>`;
    const target = document.getElementById("orders");
    loading(target, "Loading your orders…");
    try {
      const data = await api("GET", "/orders" + (status ? "?status=" + status : ""));
      target.innerHTML = data.orders.length ? data.orders.map(orderCard).join("") : `<div class="panel empty"><p>No orders here yet.</p></div>`;
    } catch (err) {
      errorPanel(target, err, loadList);
    }
  }

  function timeline(order) {
    if (order.status === "cancelled") {
      return `<div class="alert info">This order was cancelled on ${date(order.cancelled_at)}${order.cancel_reason ? ` (${esc(order.cancel_reason)})` : ""}. You have not been charged.</div>`;
    }
    const steps = [["Ordered", order.placed_at], ["Shipped", order.shipped_at], ["Delivered", order.delivered_at]];
    return `<div class="timeline">${steps.map(([label, at]) => `<div class="${at ? "done" : ""}"><strong>${label}</strong><br>${at ? date(at) : "&nbsp;"}</div>`).join("")}</div>`;
  }

  function totals(order) {
    return `<div class="summary-row"><span>Items</span><span>${money(order.subtotal_cents)}</span></div>
      ${order.discount_cents ? `<div class="summary-row"><span>Promo ${esc(order.coupon_code || "")}</span><span>−${money(order.discount_cents)}</span></div>` : ""}
      <div class="summary-row"><span>Shipping (${esc(order.delivery_option)})</span><span>${order.shipping_cents ? money(order.shipping_cents) : "FREE"}</span></div>
      <div class="summary-row"><span>Tax</span><span>${money(order.tax_cents)}</span></div>
      <div class="summary-row total"><span>Total</span><span>${money(order.total_cents)}</span></div>`;
  }

  function renderDetail(order) {
    document.title = `Order ${order.number} · Brightcart`;
    const returns = order.returns.length ? `<section class="panel"><h2>Returns</h2>${order.returns.map((r) => `<div class="summary-row"><span>${esc(r.item_name)} × ${r.quantity} · ${esc(r.reason)}</span><span class="tag">${esc(r.status)}</span></div>`).join("")}</section>` : "";
    main.innerHTML = `<nav class="breadcrumbs" aria-label="Breadcrumb"><a href="${BASE}/orders">Your orders</a> › Order ${esc(order.number)}</nav>
      <div class="row"><h1>Order details</h1>${statusTag(order.status)}<span class="spacer"></span>
        ${order.can_return ? `<a class="btn" href="${BASE}/orders/${encodeURIComponent(order.id)}/return">Return items</a>` : ""}
        ${order.can_cancel ? '<button type="button" class="btn btn-danger" id="cancel-order">Cancel order</button>' : ""}</div>
      <p class="muted">Ordered on ${date(order.placed_at)} · Order # ${esc(order.number)}${order.return_by && order.status === "delivered" ? ` · Return window ends ${date(order.return_by)}` : ""}</p>
      <div class="two-col"><div>
        <section class="panel">${timeline(order)}${order.items.map((i) => itemRow(i, `<a class="small" href="${BASE}/p/${encodeURIComponent(i.product_id)}">Buy it again</a>`)).join("")}</section>
        ${returns}</div>
        <aside><section class="panel"><h3>Ship to</h3><p class="small">${esc(order.ship_to)}</p><h3>Payment</h3><p class="small">${esc(order.payment_label)}</p></section>
          <section class="panel"><h3>Order summary</h3>${totals(order)}</section></aside></div>`;
    const cancel = document.getElementById("cancel-order");
    if (cancel) cancel.addEventListener("click", () => cancelDialog(order));
  }

  function cancelDialog(order) {
    const backdrop = document.createElement("div");
    backdrop.className = "modal-backdrop";
    backdrop.innerHTML = `<div class="modal" role="dialog" aria-modal="true" aria-labelledby="cancel-title">
      <h2 id="cancel-title">Cancel order ${esc(order.number)}?</h2>
      <p class="muted">All items in this order will be cancelled and you won't be charged.</p>
      <div class="field"><label for="cancel-reason">Reason for cancelling</label><select id="cancel-reason"><option value="">Choose a reason</option>${order.cancel_reasons.map((r) => `<option>${esc(r)}</option>`).join("")}</select></div>
      <div class="actions"><button type="button" class="btn" id="keep-order">Keep order</button><button type="button" class="btn btn-danger" id="confirm-cancel">Cancel order</button></div></div>`;
    document.body.appendChild(backdrop);
    const close = () => backdrop.remove();
    backdrop.querySelector("#keep-order").addEventListener("click", close);
    backdrop.querySelector("#confirm-cancel").addEventListener("click", async (event) => {
      const reason = backdrop.querySelector("#cancel-reason").value;
      if (!reason) { toast("Choose a reason for cancelling.", "error"); return; }
      const attempt = () => busy(event.target, async () => {
        try {
          const result = await api("POST", `/orders/${encodeURIComponent(order.id)}/cancel`, { reason });
          close();
          toast(result.toast || result.message || "Your order was cancelled.", "success");
          if (result.order && result.order.status) renderDetail(result.order);
          else await loadDetail();
        } catch (err) {
          reportError(err, attempt);
        }
      });
      attempt();
    });
  }

  async function loadDetail() {
    loading(main, "Loading order…");
    try {
      const order = await api("GET", `/orders/${encodeURIComponent(orderId)}`);
      if (page === "confirmation") renderConfirmation(order);
      else renderDetail(order);
    } catch (err) {
      errorPanel(main, err, loadDetail);
    }
  }

  function renderConfirmation(order) {
    main.innerHTML = `<section class="panel" style="max-width:820px;margin:0 auto">
      <div class="alert success"><strong>Order placed, thank you!</strong> A confirmation has been sent to your email.</div>
      <h1>Order # ${esc(order.number)}</h1>
      <p>Shipping to <strong>${esc(order.ship_to)}</strong> · ${order.delivery_option === "express" ? "Express delivery (1–2 business days)" : "Standard delivery (3–5 business days)"}</p>
      ${order.items.map((i) => itemRow(i)).join("")}
      <div style="max-width:320px;margin-left:auto">${totals(order)}</div>
      <div class="row" style="margin-top:16px"><a class="btn btn-blue" href="${BASE}/orders/${encodeURIComponent(order.id)}">View order details</a><a class="btn" href="${BASE}/">Continue shopping</a></div>
    </section>`;
    S.refreshHeader();
  }

  if (page === "orders") loadList();
  else loadDetail();
})();
