/* Return items of an order, and the list of return requests. */
(function () {
  "use strict";
  const S = window.Shop;
  const { api, esc, money, date, productImage, errorPanel, loading, toast, busy, reportError, main, BASE } = S;
  const page = document.body.dataset.page;
  const orderId = document.body.dataset.order;

  function lineHtml(item) {
    const left = item.quantity - item.returned_quantity;
    const options = [item.product && item.product.brand, item.color, item.size ? "Size " + item.size : ""].filter(Boolean).map(esc).join(" · ");
    let why = "";
    if (!item.can_return) {
      if (item.final_sale) why = "Final sale: this item can't be returned.";
      else if (left <= 0) why = "Already returned.";
      else why = "Not eligible for return.";
    }
    const qty = Array.from({ length: Math.max(left, 0) }, (_, i) => `<option value="${i + 1}">${i + 1}</option>`).join("");
    return `<div class="line" style="grid-template-columns:auto 80px 1fr auto">
      <input type="checkbox" id="ret-${esc(item.id)}" class="return-pick" value="${esc(item.id)}"${item.can_return ? "" : " disabled"} style="margin-top:6px;width:18px;height:18px">
      ${productImage(item.product && item.product.image, item.name)}
      <div><label for="ret-${esc(item.id)}" class="name">${esc(item.name)}</label><div class="opts">${options}${options ? " · " : ""}Purchased ${item.quantity}</div>
        ${why ? `<div class="small muted">${esc(why)}</div>` : ""}</div>
      <div>${item.can_return && left > 1 ? `<label class="small" for="qty-${esc(item.id)}">Quantity</label> <select id="qty-${esc(item.id)}" class="input">${qty}</select>` : `<strong>${money(item.unit_price_cents)}</strong>`}</div></div>`;
  }

  function renderForm(order) {
    const eligible = order.items.some((i) => i.can_return);
    const closed = order.status !== "delivered" ? `This order hasn't been delivered yet, so nothing can be returned.` : (!eligible ? "No items in this order can be returned." : "");
    main.innerHTML = `<nav class="breadcrumbs" aria-label="Breadcrumb"><a href="${BASE}/orders">Your orders</a> › <a href="${BASE}/orders/${encodeURIComponent(order.id)}">Order ${esc(order.number)}</a> › Return items</nav>
      <h1>Return items</h1>
      <p class="muted">Order # ${esc(order.number)} · Delivered ${date(order.delivered_at)}${order.return_by ? ` · Return by ${date(order.return_by)}` : ""}</p>
      ${closed ? `<div class="alert info">${closed}</div>` : ""}
      <form id="return-form" class="two-col">
        <section class="panel"><h2>Which items are you returning?</h2>${order.items.map(lineHtml).join("")}</section>
        <aside class="panel">
          <div class="field"><label for="return-reason">Reason for return</label><select id="return-reason"><option value="">Choose a reason</option>${order.return_reasons.map((r) => `<option>${esc(r)}</option>`).join("")}</select></div>
          <fieldset class="field" style="border:0;padding:0"><legend class="label">What would you like?</legend>
            <label class="choice"><input type="radio" name="resolution" value="refund" checked><span>Refund to original payment</span></label>
            <label class="choice"><input type="radio" name="resolution" value="replacement"><span>Replacement of the same item</span></label></fieldset>
          <div class="field"><label for="return-comment">Comments (optional)</label><textarea id="return-comment" rows="3" maxlength="500"></textarea></div>
          <button type="submit" class="btn btn-primary btn-block" id="submit-return"${eligible ? "" : " disabled"}>Request return</button>
        </aside></form>`;
    document.getElementById("return-form").addEventListener("submit", (event) => {
      event.preventDefault();
      submit(order);
    });
  }

  function submit(order) {
    const picked = [...main.querySelectorAll(".return-pick:checked")].map((box) => {
      const qty = document.getElementById("qty-" + box.value);
      return { order_item_id: box.value, quantity: qty ? parseInt(qty.value, 10) : 1 };
    });
    if (!picked.length) { toast("Select at least one item to return.", "error"); return; }
    const reason = document.getElementById("return-reason").value;
    if (!reason) { toast("Choose a reason for the return.", "error"); return; }
    const payload = {
      items: picked, reason,
      resolution: main.querySelector('input[name="resolution"]:checked').value,
      comment: document.getElementById("return-comment").value,
    };
    const attempt = () => busy(document.getElementById("submit-return"), async () => {
      try {
        const result = await api("POST", `/orders/${encodeURIComponent(order.id)}/returns`, payload);
        toast(result.toast || result.message || "Return requested.", "success");
        setTimeout(() => { location.href = BASE + "/returns"; }, 900);
      } catch (err) {
        reportError(err, attempt);
      }
    });
    attempt();
  }

  async function loadForm() {
    loading(main, "Loading order…");
    try {
      renderForm(await api("GET", `/orders/${encodeURIComponent(orderId)}`));
    } catch (err) {
      errorPanel(main, err, loadForm);
    }
  }

  async function loadList() {
    main.innerHTML = `<div class="row"><h1>Your returns</h1><span class="spacer"></span><a href="${BASE}/orders">Your orders</a></div><div id="returns"></div>`;
    const target = document.getElementById("returns");
    loading(target, "Loading returns…");
    try {
      const data = await api("GET", "/returns");
      if (!data.returns.length) {
        target.innerHTML = `<div class="panel empty"><p>You have no return requests.</p><a class="btn" href="${BASE}/orders">Go to your orders</a></div>`;
        return;
      }
      target.innerHTML = `<section class="panel">${data.returns.map((r) => `<div class="line" style="grid-template-columns:1fr auto">
        <div><strong>${esc(r.item_name)}</strong>${r.size || r.color ? ` <span class="muted small">(${[r.color, r.size ? "Size " + r.size : ""].filter(Boolean).map(esc).join(", ")})</span>` : ""}
          <div class="small">Order <a href="${BASE}/orders/${encodeURIComponent(r.order_id)}">${esc(r.order_number)}</a> · Qty ${r.quantity} · ${esc(r.reason)} · requested ${date(r.created_at)}</div>
          ${r.comment ? `<div class="small muted">“${esc(r.comment)}”</div>` : ""}</div>
        <div style="text-align:right"><span class="tag blue">${esc(r.status === "requested" ? "Return requested" : r.status)}</span>
          <div class="small">${r.resolution === "refund" ? "Refund " + money(r.refund_cents) : "Replacement"}</div></div></div>`).join("")}</section>`;
    } catch (err) {
      errorPanel(target, err, loadList);
    }
  }

  if (page === "return") loadForm();
  else loadList();
})();
