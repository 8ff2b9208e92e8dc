/* Account settings, addresses and payment methods. */
(function () {
  "use strict";
  const S = window.Shop;
  const { api, esc, errorPanel, loading, toast, busy, reportError, main, BASE, params } = S;
  const page = document.body.dataset.page;
  const backToCheckout = params().get("return") === "checkout";

  function shell(title, inner) {
    const links = [["account", "/account", "Account settings"], ["addresses", "/account/addresses", "Addresses"], ["payments", "/account/payments", "Payment methods"],
      ["orders", "/orders", "Orders"], ["returns", "/returns", "Returns"], ["notifications", "/notifications", "Notifications"]];
    main.innerHTML = `<div class="account-layout"><nav class="panel side-nav" aria-label="Account">
      ${links.map(([key, href, label]) => `<a href="${BASE}${href}"${key === page ? ' aria-current="page"' : ""}>${label}</a>`).join("")}
      <hr style="border:0;border-top:1px solid var(--line)"><button type="button" class="btn-link" id="sign-out" style="padding:9px 12px">Sign out</button></nav>
      <section><div class="row"><h1>${esc(title)}</h1><span class="spacer"></span>${backToCheckout ? `<a class="btn btn-blue" href="${BASE}/checkout">Back to checkout</a>` : ""}</div><div id="content">${inner}</div></section></div>`;
    document.getElementById("sign-out").addEventListener("click", async () => {
      try { await api("POST", "/logout"); location.href = BASE + "/login"; } catch (err) { reportError(err); }
    });
    return document.getElementById("content");
  }

  function confirmDialog(title, text, confirmLabel) {
    return new Promise((resolve) => {
      const backdrop = document.createElement("div");
      backdrop.className = "modal-backdrop";
      backdrop.innerHTML = `<div class="modal" role="dialog" aria-modal="true" aria-labelledby="confirm-title"><h2 id="confirm-title">${esc(title)}</h2><p>${esc(text)}</p>
        <div class="actions"><button type="button" class="btn" data-no>Cancel</button><button type="button" class="btn btn-danger" data-yes>${esc(confirmLabel)}</button></div></div>`;
      document.body.appendChild(backdrop);
      backdrop.querySelector("[data-no]").addEventListener("click", () => { backdrop.remove(); resolve(false); });
      backdrop.querySelector("[data-yes]").addEventListener("click", () => { backdrop.remove(); resolve(true); });
    });
  }

  async function write(button, method, path, payload, fallback, after) {
    const attempt = () => busy(button, async () => {
      try {
        const result = await api(method, path, payload);
        toast(result.toast || result.message || fallback, "success");
        await after(result);
      } catch (err) {
        reportError(err, attempt);
      }
    });
    return attempt();
  }

  /* ---------------- account settings */
  async function loadAccount() {
    const content = shell("Account settings", "");
    loading(content);
    try {
      const data = await api("GET", "/account");
      const a = data.account;
      content.innerHTML = `<form class="panel" id="account-form" style="max-width:640px">
        <div class="form-grid">
          <div class="field"><label for="full-name">Full name</label><input id="full-name" value="${esc(a.full_name)}" autocomplete="name"></div>
          <div class="field"><label for="email">Email</label><input id="email" value="${esc(a.email)}" readonly aria-readonly="true"><span class="hint">Contact support to change your email.</span></div>
          <div class="field"><label for="phone">Phone</label><input id="phone" value="${esc(a.phone)}" autocomplete="tel"></div>
          <div class="field"><label for="newsletter">Newsletter</label><select id="newsletter">${data.newsletter_frequencies.map((f) => `<option value="${f}"${f === a.newsletter_frequency ? " selected" : ""}>${f === "never" ? "Never" : f[0].toUpperCase() + f.slice(1)}</option>`).join("")}</select></div>
        </div>
        <h3>Communication preferences</h3>
        <label class="check"><input type="checkbox" id="marketing-emails"${a.marketing_emails ? " checked" : ""}> Email me about deals and recommendations</label>
        <label class="check"><input type="checkbox" id="order-sms"${a.order_updates_sms ? " checked" : ""}> Text me delivery updates</label>
        <div style="margin-top:14px"><button class="btn btn-blue" type="submit" id="save-account">Save changes</button></div></form>`;
      document.getElementById("account-form").addEventListener("submit", (e) => {
        e.preventDefault();
        const payload = {
          full_name: document.getElementById("full-name").value, phone: document.getElementById("phone").value,
          newsletter_frequency: document.getElementById("newsletter").value,
          marketing_emails: document.getElementById("marketing-emails").checked, order_updates_sms: document.getElementById("order-sms").checked,
        };
        write(document.getElementById("save-account"), "PATCH", "/account", payload, "Your settings were saved.", () => S.refreshHeader());
      });
    } catch (err) {
      errorPanel(content, err, loadAccount);
    }
  }

  /* ---------------- addresses */
  const ADDRESS_FIELDS = [["label", "Label (for example Home or Work)", ""], ["full_name", "Full name", "name"], ["line1", "Street address", "address-line1"],
    ["line2", "Apartment, suite, unit (optional)", "address-line2"], ["city", "City", "address-level2"], ["region", "State", "address-level1"],
    ["postal_code", "ZIP code", "postal-code"], ["phone", "Phone number", "tel"]];

  function addressForm(address) {
    const a = address || {};
    return `<form class="panel" id="address-form" style="margin-bottom:16px"><h2>${address ? "Edit address" : "Add a new address"}</h2>
      <div class="form-grid">${ADDRESS_FIELDS.map(([key, label, auto]) => `<div class="field${key === "line1" || key === "line2" ? " wide" : ""}"><label for="addr-${key}">${label}</label><input id="addr-${key}" name="${key}" value="${esc(a[key] || "")}"${auto ? ` autocomplete="${auto}"` : ""}></div>`).join("")}</div>
      ${address && address.is_default ? "" : '<label class="check"><input type="checkbox" id="addr-default"> Make this my default address</label>'}
      <div class="row" style="margin-top:10px"><button class="btn btn-blue" type="submit" id="save-address">${address ? "Save changes" : "Add address"}</button><button class="btn" type="button" id="cancel-address">Cancel</button></div></form>`;
  }

  async function loadAddresses() {
    const content = shell("Your addresses", "");
    loading(content);
    try {
      const data = await api("GET", "/addresses");
      content.innerHTML = `<div id="form-slot"></div><div class="address-grid">
        <button type="button" class="address-card" id="new-address" style="align-items:center;justify-content:center;border-style:dashed;cursor:pointer;min-height:170px;font-weight:700">+ Add address</button>
        ${data.addresses.map((a) => `<article class="address-card${a.is_default ? " default" : ""}" data-address="${esc(a.id)}" aria-label="${esc(a.label)} address">
          <div class="row"><strong>${esc(a.label)}</strong>${a.is_default ? '<span class="tag blue">Default</span>' : ""}</div>
          <span>${esc(a.full_name)}</span><span>${esc(a.line1)}</span>${a.line2 ? `<span>${esc(a.line2)}</span>` : ""}<span>${esc(a.city)}, ${esc(a.region)} ${esc(a.postal_code)}</span>${a.phone ? `<span class="muted small">Phone: ${esc(a.phone)}</span>` : ""}
          <div class="actions"><button type="button" class="btn-link edit-address">Edit</button><button type="button" class="btn-link remove-address">Remove</button>${a.is_default ? "" : '<button type="button" class="btn-link default-address">Set as default</button>'}</div></article>`).join("")}</div>`;
      const byId = Object.fromEntries(data.addresses.map((a) => [a.id, a]));
      document.getElementById("new-address").addEventListener("click", () => openAddressForm(null));
      content.querySelectorAll("[data-address]").forEach((card) => {
        const address = byId[card.dataset.address];
        card.querySelector(".edit-address").addEventListener("click", () => openAddressForm(address));
        card.querySelector(".remove-address").addEventListener("click", async (e) => {
          if (await confirmDialog("Remove this address?", `${address.label}: ${address.line1}, ${address.city}`, "Remove")) {
            write(e.target, "DELETE", `/addresses/${encodeURIComponent(address.id)}`, undefined, "Address removed.", loadAddresses);
          }
        });
        const def = card.querySelector(".default-address");
        if (def) def.addEventListener("click", (e) => write(e.target, "POST", `/addresses/${encodeURIComponent(address.id)}/default`, {}, "Default address updated.", loadAddresses));
      });
    } catch (err) {
      errorPanel(content, err, loadAddresses);
    }
  }

  function openAddressForm(address) {
    const slot = document.getElementById("form-slot");
    slot.innerHTML = addressForm(address);
    slot.scrollIntoView({ block: "start" });
    document.getElementById("cancel-address").addEventListener("click", () => { slot.innerHTML = ""; });
    document.getElementById("address-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const payload = {};
      ADDRESS_FIELDS.forEach(([key]) => { payload[key] = document.getElementById("addr-" + key).value; });
      const box = document.getElementById("addr-default");
      payload.make_default = !!(box && box.checked);
      const button = document.getElementById("save-address");
      if (address) write(button, "PATCH", `/addresses/${encodeURIComponent(address.id)}`, payload, "Address updated.", loadAddresses);
      else write(button, "POST", "/addresses", payload, "Address saved.", loadAddresses);
    });
    document.getElementById("addr-" + (address ? "line1" : "label")).focus();
  }

  /* ---------------- payment methods */
  const BRAND_COLOR = { Visa: "#1a3d8f", Mastercard: "#c2410c", "American Express": "#0f766e", Discover: "#a16207" };
  const BRAND_SHORT = { Visa: "VISA", Mastercard: "MC", "American Express": "AMEX", Discover: "DISC" };

  async function loadPayments() {
    const content = shell("Payment methods", "");
    loading(content);
    try {
      const data = await api("GET", "/payment-methods");
      const year = data.current_year;
      content.innerHTML = `<section class="panel">${data.payment_methods.map((p) => `<div class="line" style="grid-template-columns:60px 1fr auto;align-items:center" data-card="${esc(p.id)}" aria-label="${esc(p.label)}">
          <span class="card-brand" style="background:${BRAND_COLOR[p.brand] || "#475569"}">${esc(BRAND_SHORT[p.brand] || "CARD")}</span>
          <div><strong>${esc(p.label)}</strong>${p.nickname ? ` <span class="muted small">${esc(p.nickname)}</span>` : ""} ${p.is_default ? '<span class="tag blue">Default</span>' : ""} ${p.expired ? '<span class="tag danger">Expired</span>' : ""}
            <div class="small muted">${esc(p.holder)} · Expires ${String(p.exp_month).padStart(2, "0")}/${p.exp_year}</div></div>
          <div class="row">${p.is_default ? "" : '<button type="button" class="btn-link default-card">Make default</button>'}<button type="button" class="btn-link remove-card">Remove</button></div></div>`).join("")}</section>
        <form class="panel" id="card-form" style="max-width:640px"><h2>Add a card</h2>
          <div class="form-grid">
            <div class="field wide"><label for="card-number">Card number</label><input id="card-number" inputmode="numeric" autocomplete="cc-number" placeholder="1234 5678 9012 3456"></div>
            <div class="field wide"><label for="card-holder">Name on card</label><input id="card-holder" autocomplete="cc-name"></div>
            <div class="field"><label for="card-month">Expiry month</label><select id="card-month">${Array.from({ length: 12 }, (_, i) => `<option value="${i + 1}">${String(i + 1).padStart(2, "0")}</option>`).join("")}</select></div>
            <div class="field"><label for="card-year">Expiry year</label><select id="card-year">${Array.from({ length: 10 }, (_, i) => `<option>${year + i}</option>`).join("")}</select></div>
            <div class="field wide"><label for="card-nickname">Nickname (optional)</label><input id="card-nickname" maxlength="40"></div>
          </div>
          <label class="check"><input type="checkbox" id="card-default"> Make this my default payment method</label>
          <div style="margin-top:10px"><button class="btn btn-blue" type="submit" id="save-card">Add card</button></div></form>`;
      const byId = Object.fromEntries(data.payment_methods.map((p) => [p.id, p]));
      content.querySelectorAll("[data-card]").forEach((row) => {
        const card = byId[row.dataset.card];
        row.querySelector(".remove-card").addEventListener("click", async (e) => {
          if (await confirmDialog("Remove this card?", card.label, "Remove")) {
            write(e.target, "DELETE", `/payment-methods/${encodeURIComponent(card.id)}`, undefined, "Card removed.", loadPayments);
          }
        });
        const def = row.querySelector(".default-card");
        if (def) def.addEventListener("click", (e) => write(e.target, "POST", `/payment-methods/${encodeURIComponent(card.id)}/default`, {}, "Default card updated.", loadPayments));
      });
      document.getElementById("card-form").addEventListener("submit", (e) => {
        e.preventDefault();
        const payload = {
          number: document.getElementById("card-number").value, holder: document.getElementById("card-holder").value,
          exp_month: parseInt(document.getElementById("card-month").value, 10), exp_year: parseInt(document.getElementById("card-year").value, 10),
          nickname: document.getElementById("card-nickname").value, make_default: document.getElementById("card-default").checked,
        };
        write(document.getElementById("save-card"), "POST", "/payment-methods", payload, "Card saved.", loadPayments);
      });
    } catch (err) {
      errorPanel(content, err, loadPayments);
    }
  }

  if (page === "addresses") loadAddresses();
  else if (page === "payments") loadPayments();
  else loadAccount();
})();
