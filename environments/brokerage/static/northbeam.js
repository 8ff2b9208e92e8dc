/* Northbeam: every page's script (errors, confirmations and one renderer per page, on the site kit's window.Site). */
(function () {
  "use strict";
  const S = window.Site;
  S.configure({ name: "Northbeam", serverError: "Something went wrong on our side. Nothing was changed; please try again." });
  const { api, BASE, h, show } = S;
  const body = document.body;
  const app = S.main;

  function money(cents) {
    const sign = cents < 0 ? "-" : "";
    const abs = Math.abs(cents);
    return sign + "$" + Math.floor(abs / 100).toLocaleString("en-US") + "." + String(abs % 100).padStart(2, "0");
  }
  function signed(cents) { return (cents > 0 ? "+" : "") + money(cents); }
  function cents(text) {
    const clean = String(text || "").replace(/[$,\s]/g, "");
    if (!/^\d+(\.\d{1,2})?$/.test(clean)) return null;
    const [whole, frac = ""] = clean.split(".");
    return parseInt(whole, 10) * 100 + parseInt((frac + "00").slice(0, 2), 10);
  }
  function day(iso) { return iso ? iso.slice(0, 10) : ""; }
  function tone(value) { return value > 0 ? "up" : value < 0 ? "down" : "flat"; }
  function statusText(s) { return s.replace("_", " "); }

  function banner(message, kind) {
    const region = document.getElementById("notice") || app.insertBefore(h("div", { id: "notice" }), app.firstChild);
    region.replaceChildren(h("div", { class: "notice " + (kind || "error"), role: kind === "ok" ? "status" : "alert" }, message));
  }

  function reportError(err) {
    if (err && err.status === 401) {
      banner(h("span", {}, err.detail + " ", h("a", { href: S.loginUrl(err) }, "Sign in again")));
      return;
    }
    banner((err && err.detail) || "Something went wrong. Please try again.");
  }

  function failPage(err) {
    show(h("section", { class: "panel empty" }, h("h1", { text: "We couldn't load this page" }),
      h("p", { text: (err && err.detail) || "Please try again." }),
      h("button", { type: "button", class: "btn", onclick: () => location.reload() }, "Try again")));
    if (err && err.status === 401) reportError(err);
  }

  /* Ask before anything that moves money or cannot be undone. Resolves true on confirm. */
  function confirmDialog(title, lines, confirmLabel) {
    return new Promise((resolve) => {
      const dialog = h("dialog", { class: "confirm", "aria-labelledby": "confirm-title" });
      const done = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
      dialog.append(
        h("h2", { id: "confirm-title", text: title }),
        h("dl", {}, lines.map(([k, v]) => [h("dt", { text: k }), h("dd", { text: v })])),
        h("div", { class: "actions" },
          h("button", { type: "button", class: "btn ghost", onclick: () => done(false) }, "Go back"),
          h("button", { type: "button", class: "btn primary", onclick: () => done(true) }, confirmLabel)));
      dialog.addEventListener("cancel", () => resolve(false));
      document.body.append(dialog);
      dialog.showModal();
    });
  }

  /* Run a write once: the button stays disabled until the server answers. */
  async function submit(button, action) {
    if (button.disabled) return null;
    button.disabled = true;
    try { return await action(); } catch (err) { reportError(err); return null; } finally { button.disabled = false; }
  }

  function table(headers, rows, emptyText) {
    if (!rows.length) return h("p", { class: "empty-row", text: emptyText });
    return h("table", {}, h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col", text: t })))),
      h("tbody", {}, rows));
  }

  function field(label, id, control, hint) {
    control.id = id;
    return h("div", { class: "field" }, h("label", { for: id, text: label }), control, hint ? h("small", { text: hint }) : null);
  }

  /* counter=stepper (UI profile): a number field between "−" and "+" buttons; typing still works. */
  function withStepper(input, noun) {
    if (S.ui("counter") !== "stepper") return;
    const step = (delta) => {
      const n = parseInt(input.value, 10);
      input.value = String(Math.max(1, (n > 0 ? n : 0) + delta));
      input.dispatchEvent(new Event("input", { bubbles: true }));
    };
    const wrap = h("span", { class: "stepper" });
    input.replaceWith(wrap);
    wrap.append(h("button", { type: "button", "aria-label": "Decrease " + noun, onclick: () => step(-1) }, "−"), input,
      h("button", { type: "button", "aria-label": "Increase " + noun, onclick: () => step(1) }, "+"));
  }

  /* navigation=side-menu (UI profile): the main menu is a drawer behind a "Menu" button. */
  function sideMenu() {
    const button = document.querySelector(".menu-button");
    const menu = document.getElementById("main-nav");
    if (!button || !menu) return;
    const toggle = (open) => {
      menu.classList.toggle("open", open);
      button.setAttribute("aria-expanded", String(open));
      if (open) (menu.querySelector("a[aria-current]") || menu.querySelector("a")).focus();
    };
    button.addEventListener("click", () => toggle(!menu.classList.contains("open")));
    menu.querySelector(".menu-close").addEventListener("click", () => { toggle(false); button.focus(); });
    document.addEventListener("keydown", (e) => { if (e.key === "Escape" && menu.classList.contains("open")) { toggle(false); button.focus(); } });
  }

  function accountSelect(accounts, chosen) {
    return h("select", {}, accounts.map((a) => h("option", { value: a.id, selected: a.id === chosen },
      `${a.name} (${a.masked_number}) · ${money(a.buying_power_cents)} available`)));
  }

  function sparkline(points) {
    const w = 520, ht = 120, min = Math.min(...points), max = Math.max(...points), span = max - min || 1;
    const path = points.map((p, i) => `${i ? "L" : "M"}${(i / (points.length - 1)) * w},${ht - ((p - min) / span) * (ht - 8) - 4}`).join(" ");
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `0 0 ${w} ${ht}`);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("class", "chart " + tone(points[points.length - 1] - points[0]));
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `60-day price from ${money(points[0])} to ${money(points[points.length - 1])}`);
    const line = document.createElementNS("http://www.w3.org/2000/svg", "path");
    line.setAttribute("d", path);
    svg.append(line);
    return svg;
  }

  // ------------------------------------------------------------------ pages

  async function portfolio() {
    const data = await api("GET", "/accounts");
    const all = await Promise.all(data.accounts.map((a) => api("GET", "/accounts/" + a.id)));
    const rows = data.accounts.map((a) => h("tr", {},
      h("td", {}, h("a", { href: `${BASE}/accounts/${a.id}` }, a.name), h("div", { class: "muted" }, a.kind, " · ", h("span", { class: "account-number", text: a.masked_number }))),
      h("td", { class: "num", text: money(a.cash_cents) }), h("td", { class: "num", text: money(a.buying_power_cents) }),
      h("td", { class: "num", text: money(a.holdings_value_cents) }), h("td", { class: "num strong", text: money(a.total_value_cents) })));
    const positions = all.flatMap((d) => d.positions.map((p) => h("tr", {},
      h("td", {}, h("a", { href: `${BASE}/quote/${p.symbol}` }, p.symbol), h("div", { class: "muted", text: p.name })),
      h("td", { text: d.account.name }), h("td", { class: "num", text: p.quantity }),
      h("td", { class: "num", text: money(p.price_cents) }), h("td", { class: "num", text: money(p.value_cents) }),
      h("td", { class: "num " + tone(p.gain_cents), text: signed(p.gain_cents) }))));
    show(h("section", { class: "hero" }, h("p", { class: "muted", text: "Total portfolio value" }), h("h1", { text: money(data.total_value_cents) })),
      h("section", { class: "panel" }, h("h2", { text: "Accounts" }),
        table(["Account", "Cash", "Buying power", "Holdings", "Total value"], rows, "You have no accounts yet.")),
      h("section", { class: "panel" }, h("h2", { text: "Positions" }),
        table(["Symbol", "Account", "Shares", "Price", "Market value", "Gain/loss"], positions, "You don't hold any stocks or ETFs yet.")));
  }

  function orderRows(orders, names, onCancel) {
    return orders.map((o) => {
      const working = o.status === "open" || o.status === "partially_filled";
      return h("tr", { "data-order": o.id },
        h("td", { text: day(o.created_at) }), h("td", {}, h("a", { href: `${BASE}/quote/${o.symbol}` }, o.symbol)),
        names ? h("td", { text: names[o.account_id] || "" }) : null,
        h("td", { text: `${o.side === "buy" ? "Buy" : "Sell"} · ${o.order_type === "limit" ? "Limit " + money(o.limit_price_cents) : "Market"}` }),
        h("td", { class: "num", text: `${o.filled_quantity} / ${o.quantity}` }),
        h("td", { class: "num", text: o.avg_fill_price_cents ? money(o.avg_fill_price_cents) : "—" }),
        h("td", {}, h("span", { class: "pill " + o.status, text: statusText(o.status) })),
        h("td", {}, working ? h("button", { type: "button", class: "btn small", "aria-label": `Cancel order ${o.quantity} ${o.symbol}`, onclick: (e) => onCancel(o, e.currentTarget) }, "Cancel") : null));
    });
  }

  async function cancelOrder(order, button) {
    const ok = await confirmDialog("Cancel this order?", [["Order", `${order.side === "buy" ? "Buy" : "Sell"} ${order.quantity} ${order.symbol}`],
      ["Filled so far", `${order.filled_quantity} shares`]], "Cancel order");
    if (!ok) return;
    const result = await submit(button, () => api("POST", `/orders/${order.id}/cancel`));
    if (result) { await route(); banner(result.message, "ok"); }
  }

  async function account() {
    const data = await api("GET", "/accounts/" + body.dataset.account);
    const a = data.account;
    const positions = data.positions.map((p) => h("tr", {},
      h("td", {}, h("a", { href: `${BASE}/quote/${p.symbol}` }, p.symbol)), h("td", { text: p.name }),
      h("td", { class: "num", text: p.quantity }), h("td", { class: "num", text: money(p.value_cents) }),
      h("td", { class: "num", text: money(p.cost_basis_cents) }), h("td", { class: "num " + tone(p.gain_cents), text: signed(p.gain_cents) })));
    const docs = data.documents.map((d) => h("li", {}, h("span", { text: d.title }), h("span", { class: "muted", text: " · issued " + day(d.issued_at) })));
    show(h("section", { class: "hero" }, h("p", { class: "muted" }, a.kind, " · Account ", h("span", { class: "account-number", text: a.masked_number })),
        h("h1", { text: a.name }),
        h("div", { class: "stats" }, [["Total value", a.total_value_cents], ["Cash", a.cash_cents], ["Buying power", a.buying_power_cents]].map(([k, v]) =>
          h("div", {}, h("span", { class: "muted", text: k }), h("strong", { text: money(v) }))))),
      h("section", { class: "panel" }, h("h2", { text: "Positions" }), table(["Symbol", "Name", "Shares", "Market value", "Cost basis", "Gain/loss"], positions, "No positions in this account.")),
      h("section", { class: "panel" }, h("h2", { text: "Order history" }), table(["Date", "Symbol", "Order", "Filled", "Avg price", "Status", ""], orderRows(data.orders, null, cancelOrder), "No orders in this account yet.")),
      h("section", { class: "panel" }, h("h2", { text: "Documents" }), docs.length ? h("ul", { class: "docs" }, docs) : h("p", { text: "No documents yet." })));
  }

  async function markets() {
    const params = new URLSearchParams(location.search);
    const q = params.get("q") || "", page = parseInt(params.get("page") || "1", 10), kind = params.get("kind") || "";
    const data = await api("GET", `/instruments?q=${encodeURIComponent(q)}&page=${page}&kind=${encodeURIComponent(kind)}`);
    const go = (changes) => { const next = new URLSearchParams({ q, page: String(page), kind, ...changes }); location.search = next.toString(); };
    const input = h("input", { type: "search", value: q, placeholder: "Symbol or company name" });
    const form = h("form", { class: "search-row", role: "search", onsubmit: (e) => { e.preventDefault(); go({ q: input.value.trim(), page: "1" }); } },
      field("Search stocks and ETFs", "market-q", input),
      field("Type", "market-kind", h("select", { onchange: (e) => go({ kind: e.target.value, page: "1" }) },
        [["", "All"], ["Stock", "Stocks"], ["ETF", "ETFs"]].map(([v, t]) => h("option", { value: v, selected: v === kind }, t)))),
      h("button", { class: "btn primary", type: "submit" }, "Search"));
    const rows = data.items.map((i) => h("tr", {},
      h("td", {}, h("a", { href: `${BASE}/quote/${i.symbol}` }, i.symbol)), h("td", { text: i.name }), h("td", { text: i.kind }),
      h("td", { text: i.sector }), h("td", { class: "num", text: money(i.price_cents) }), h("td", { class: "num " + tone(i.change_cents), text: signed(i.change_cents) })));
    const pager = h("nav", { class: "pager", "aria-label": "Pages" },
      h("button", { type: "button", class: "btn small", disabled: data.page <= 1, onclick: () => go({ page: String(data.page - 1) }) }, "Previous"),
      h("span", { text: `Page ${data.page} of ${data.pages} · ${data.total} results` }),
      h("button", { type: "button", class: "btn small", disabled: data.page >= data.pages, onclick: () => go({ page: String(data.page + 1) }) }, "Next"));
    show(h("section", { class: "panel" }, h("h1", { text: "Markets" }), form,
      table(["Symbol", "Name", "Type", "Sector", "Last price", "Today"], rows, q ? `No stocks or ETFs match “${q}”.` : "No instruments to show."),
      data.total ? pager : null));
  }

  async function quote() {
    const symbol = body.dataset.symbol;
    const [data, accounts] = await Promise.all([api("GET", "/quote/" + encodeURIComponent(symbol)), api("GET", "/accounts")]);
    const i = data.instrument;
    document.title = `${i.symbol} · Northbeam`;
    const acct = accountSelect(accounts.accounts, accounts.accounts[0] && accounts.accounts[0].id);
    const side = h("select", {}, h("option", { value: "buy" }, "Buy"), h("option", { value: "sell" }, "Sell"));
    const type = h("select", {}, h("option", { value: "market" }, "Market"), h("option", { value: "limit" }, "Limit"));
    const qty = h("input", { type: "number", min: "1", step: "1", inputmode: "numeric" });
    const limit = h("input", { type: "text", inputmode: "decimal", placeholder: "0.00" });
    const limitField = field("Limit price", "order-limit", limit, "Buy at or below / sell at or above this price");
    const estimate = h("p", { class: "estimate", "aria-live": "polite" });
    const update = () => {
      limitField.hidden = type.value !== "limit";
      const n = parseInt(qty.value, 10);
      const per = type.value === "limit" ? cents(limit.value) : i.price_cents;
      estimate.textContent = n > 0 && per ? `Estimated ${side.value === "buy" ? "cost" : "proceeds"}: ${money(n * per)}` : "";
    };
    [side, type, qty, limit].forEach((c) => c.addEventListener("input", update));
    const review = h("button", { type: "submit", class: "btn primary" }, "Review order");
    const ticket = h("form", { class: "ticket", "aria-label": "Trade " + i.symbol, onsubmit: async (e) => {
      e.preventDefault();
      const n = parseInt(qty.value, 10);
      if (!(n > 0)) { banner("Enter a whole number of shares (1 or more)."); qty.focus(); return; }
      let limitCents = null;
      if (type.value === "limit") {
        limitCents = cents(limit.value);
        if (!limitCents) { banner("Enter a limit price like 12.50."); limit.focus(); return; }
      }
      const chosen = accounts.accounts.find((a) => a.id === acct.value);
      const ok = await confirmDialog("Review your order", [["Account", `${chosen.name} (${chosen.masked_number})`],
        ["Order", `${side.value === "buy" ? "Buy" : "Sell"} ${n} ${i.symbol}`],
        ["Type", type.value === "limit" ? `Limit at ${money(limitCents)}` : `Market (last ${money(i.price_cents)})`],
        ["Estimated total", money(n * (limitCents || i.price_cents))]], "Place order");
      if (!ok) return;
      const result = await submit(review, () => api("POST", "/orders", { account_id: acct.value, symbol: i.symbol, side: side.value,
        order_type: type.value, quantity: n, limit_price_cents: limitCents }));
      if (result) { await route(); banner(h("span", {}, result.message + " ", h("a", { href: BASE + "/orders" }, "View orders")), "ok"); }
    } }, h("h2", { text: "Trade" }), field("Account", "order-account", acct), field("Action", "order-side", side), field("Order type", "order-type", type),
      field("Quantity (shares)", "order-qty", qty), limitField, estimate, review);
    withStepper(qty, "quantity");
    update();
    const wlSelect = h("select", {}, data.watchlists.map((w) => h("option", { value: w.id }, w.name)));
    const watchButton = h("button", { type: "submit", class: "btn" }, "Add to watchlist");
    const watch = data.watchlists.length ? h("form", { class: "inline", onsubmit: async (e) => {
      e.preventDefault();
      const done = await submit(watchButton, () => api("POST", `/watchlists/${wlSelect.value}/items`, { symbol: i.symbol }));
      if (done) banner(`${i.symbol} added to ${wlSelect.selectedOptions[0].textContent}.`, "ok");
    } }, field("Watchlist", "watch-list", wlSelect), watchButton) : h("p", {}, h("a", { href: BASE + "/watchlists" }, "Create a watchlist"), " to follow this symbol.");
    const direction = h("select", {}, h("option", { value: "above" }, "rises above"), h("option", { value: "below" }, "falls below"));
    const alertPrice = h("input", { type: "text", inputmode: "decimal", placeholder: "0.00" });
    const alertButton = h("button", { type: "submit", class: "btn" }, "Create alert");
    const alertForm = h("form", { class: "inline", onsubmit: async (e) => {
      e.preventDefault();
      const price = cents(alertPrice.value);
      if (!price) { banner("Enter an alert price like 12.50."); return; }
      const done = await submit(alertButton, () => api("POST", "/alerts", { symbol: i.symbol, direction: direction.value, price_cents: price }));
      if (done) banner(`Alert set: ${i.symbol} ${direction.selectedOptions[0].textContent} ${money(price)}.`, "ok");
    } }, field("Alert me when the price", "alert-direction", direction), field("Price", "alert-price", alertPrice), alertButton);
    show(h("div", { class: "quote-grid" },
      h("section", { class: "panel" }, h("p", { class: "muted", text: `${i.exchange} · ${i.kind} · ${i.sector}` }), h("h1", {}, i.symbol, " ", h("span", { class: "muted", text: i.name })),
        h("p", { class: "price" }, h("strong", { text: money(i.price_cents) }), " ", h("span", { class: tone(data.change_cents), text: `${signed(data.change_cents)} today` })),
        sparkline(i.history_cents),
        h("h2", { text: "Your shares" }),
        data.holdings.length ? h("ul", {}, data.holdings.map((x) => h("li", { text: `${x.account_name}: ${x.quantity} shares` }))) : h("p", { text: "You don't own this yet." }),
        h("h2", { text: "Watch" }), watch, h("h2", { text: "Price alert" }), alertForm),
      h("section", { class: "panel" }, ticket)));
  }

  async function orders() {
    const filter = new URLSearchParams(location.search).get("status") || "";
    const [data, accounts] = await Promise.all([api("GET", "/orders?status=" + filter), api("GET", "/accounts")]);
    const names = Object.fromEntries(accounts.accounts.map((a) => [a.id, a.name]));
    const tabs = h("nav", { class: "tabs", "aria-label": "Order status" }, [["", "All"], ["working", "Working"], ["filled", "Filled"], ["cancelled", "Cancelled"]].map(([v, t]) =>
      h("a", { href: `${BASE}/orders${v ? "?status=" + v : ""}`, "aria-current": v === filter ? "page" : null }, t)));
    show(h("section", { class: "panel" }, h("h1", { text: "Orders" }), tabs,
      table(["Date", "Symbol", "Account", "Order", "Filled", "Avg price", "Status", ""], orderRows(data.orders, names, cancelOrder), "No orders here.")));
  }

  async function transfers() {
    const [data, accounts] = await Promise.all([api("GET", "/transfers"), api("GET", "/accounts")]);
    const names = Object.fromEntries(accounts.accounts.map((a) => [a.id, a.name]));
    const from = accountSelect(accounts.accounts, accounts.accounts[0].id);
    const to = accountSelect(accounts.accounts, accounts.accounts[1] && accounts.accounts[1].id);
    const amount = h("input", { type: "text", inputmode: "decimal", placeholder: "0.00" });
    const memo = h("input", { type: "text", maxlength: "80" });
    const button = h("button", { type: "submit", class: "btn primary" }, "Review transfer");
    const form = h("form", { class: "ticket", onsubmit: async (e) => {
      e.preventDefault();
      const value = cents(amount.value);
      if (!value) { banner("Enter an amount like 250.00."); amount.focus(); return; }
      if (from.value === to.value) { banner("Choose two different accounts."); return; }
      const ok = await confirmDialog("Confirm transfer", [["From", names[from.value]], ["To", names[to.value]], ["Amount", money(value)]], "Transfer " + money(value));
      if (!ok) return;
      const done = await submit(button, () => api("POST", "/transfers", { from_account_id: from.value, to_account_id: to.value, amount_cents: value, memo: memo.value }));
      if (done) { await route(); banner(`Moved ${money(value)} from ${names[done.transfers[0].from_account_id]} to ${names[done.transfers[0].to_account_id]}.`, "ok"); }
    } }, h("h2", { text: "Move cash between your accounts" }), field("From", "transfer-from", from), field("To", "transfer-to", to),
      field("Amount", "transfer-amount", amount), field("Memo (optional)", "transfer-memo", memo), button);
    const rows = data.transfers.map((t) => h("tr", {}, h("td", { text: day(t.created_at) }), h("td", { text: names[t.from_account_id] }),
      h("td", { text: names[t.to_account_id] }), h("td", { class: "num", text: money(t.amount_cents) }), h("td", { text: t.memo })));
    show(h("div", { class: "quote-grid" }, h("section", { class: "panel" }, form),
      h("section", { class: "panel" }, h("h2", { text: "Recent transfers" }), table(["Date", "From", "To", "Amount", "Memo"], rows, "No transfers yet."))));
  }

  async function watchlists() {
    const data = await api("GET", "/watchlists");
    const name = h("input", { type: "text", maxlength: "40" });
    const create = h("button", { type: "submit", class: "btn" }, "Create watchlist");
    const sections = data.watchlists.map((w) => {
      const rows = w.items.map((i) => h("tr", {}, h("td", {}, h("a", { href: `${BASE}/quote/${i.symbol}` }, i.symbol)), h("td", { text: i.name }),
        h("td", { class: "num", text: money(i.price_cents) }), h("td", { class: "num " + tone(i.change_cents), text: signed(i.change_cents) }),
        h("td", {}, h("button", { type: "button", class: "btn small", "aria-label": `Remove ${i.symbol} from ${w.watchlist.name}`, onclick: async (e) => {
          if (await submit(e.currentTarget, () => api("DELETE", `/watchlists/${w.watchlist.id}/items/${i.symbol}`))) await route();
        } }, "Remove"))));
      return h("section", { class: "panel", "aria-label": w.watchlist.name }, h("h2", { text: w.watchlist.name }),
        table(["Symbol", "Name", "Price", "Today", ""], rows, "Nothing on this list yet: open a quote and choose Add to watchlist."));
    });
    show(h("section", { class: "panel" }, h("h1", { text: "Watchlists" }),
      h("form", { class: "inline", onsubmit: async (e) => {
        e.preventDefault();
        if (await submit(create, () => api("POST", "/watchlists", { name: name.value }))) { await route(); banner("Watchlist created.", "ok"); }
      } }, field("New watchlist name", "watchlist-name", name), create)),
      ...(sections.length ? sections : [h("section", { class: "panel empty" }, h("p", { text: "You have no watchlists yet." }))]));
  }

  async function automations() {
    const [data, accounts] = await Promise.all([api("GET", "/plans"), api("GET", "/accounts")]);
    const names = Object.fromEntries(accounts.accounts.map((a) => [a.id, a.name]));
    const recRows = data.recurring.map((r) => h("tr", {}, h("td", { text: r.symbol }), h("td", { text: names[r.account_id] }),
      h("td", { class: "num", text: money(r.amount_cents) }), h("td", { text: r.frequency }), h("td", { text: r.next_date }),
      h("td", { text: r.active ? "Active" : "Paused" }),
      h("td", {}, r.active ? h("button", { type: "button", class: "btn small", "aria-label": `Pause ${r.symbol} plan`, onclick: async (e) => {
        const button = e.currentTarget;  // null once the handler awaits
        if (await confirmDialog("Pause this plan?", [["Plan", `${money(r.amount_cents)} of ${r.symbol} ${r.frequency}`]], "Pause plan")
          && await submit(button, () => api("POST", `/recurring/${r.id}/pause`))) await route();
      } }, "Pause") : null)));
    const alertRows = data.alerts.map((a) => h("tr", {}, h("td", { text: a.symbol }), h("td", { text: `${a.direction} ${money(a.price_cents)}` }),
      h("td", { text: day(a.created_at) }),
      h("td", {}, h("button", { type: "button", class: "btn small", "aria-label": `Delete ${a.symbol} alert`, onclick: async (e) => {
        if (await submit(e.currentTarget, () => api("DELETE", `/alerts/${a.id}`))) await route();
      } }, "Delete"))));
    const acct = accountSelect(accounts.accounts, accounts.accounts[0].id);
    const symbol = h("input", { type: "text", maxlength: "8", autocapitalize: "characters" });
    const amount = h("input", { type: "text", inputmode: "decimal", placeholder: "0.00" });
    const freq = h("select", {}, h("option", { value: "weekly" }, "Weekly"), h("option", { value: "monthly" }, "Monthly"));
    const start = h("input", { type: "date" });
    const button = h("button", { type: "submit", class: "btn primary" }, "Review plan");
    const form = h("form", { class: "ticket", onsubmit: async (e) => {
      e.preventDefault();
      const value = cents(amount.value);
      if (!value) { banner("Enter an amount like 100.00."); return; }
      if (!start.value) { banner("Choose the date of the first purchase."); return; }
      const ok = await confirmDialog("Start this recurring investment?", [["Account", names[acct.value]], ["Buy", `${money(value)} of ${symbol.value.toUpperCase()}`],
        ["How often", freq.value], ["First purchase", start.value]], "Start plan");
      if (!ok) return;
      if (await submit(button, () => api("POST", "/recurring", { account_id: acct.value, symbol: symbol.value.trim().toUpperCase(), amount_cents: value, frequency: freq.value, next_date: start.value }))) {
        await route(); banner("Recurring investment started.", "ok");
      }
    } }, h("h2", { text: "New recurring investment" }), field("Account", "rec-account", acct), field("Symbol", "rec-symbol", symbol),
      field("Amount per purchase", "rec-amount", amount), field("Frequency", "rec-frequency", freq), field("First purchase", "rec-start", start), button);
    show(h("div", { class: "quote-grid" }, h("div", {},
      h("section", { class: "panel" }, h("h1", { text: "Recurring investments" }), table(["Symbol", "Account", "Amount", "Frequency", "Next", "Status", ""], recRows, "No recurring investments yet.")),
      h("section", { class: "panel" }, h("h2", { text: "Price alerts" }), table(["Symbol", "When", "Created", ""], alertRows, "No price alerts. Set one from any quote page."))),
      h("section", { class: "panel" }, form)));
  }

  async function documents() {
    const kind = new URLSearchParams(location.search).get("kind") || "";
    const [data, accounts] = await Promise.all([api("GET", "/documents?kind=" + kind), api("GET", "/accounts")]);
    const names = Object.fromEntries(accounts.accounts.map((a) => [a.id, a.name]));
    const tabs = h("nav", { class: "tabs", "aria-label": "Document type" }, [["", "All"], ["statement", "Statements"], ["tax_form", "Tax forms"]].map(([v, t]) =>
      h("a", { href: `${BASE}/documents${v ? "?kind=" + v : ""}`, "aria-current": v === kind ? "page" : null }, t)));
    const rows = data.documents.map((d) => h("tr", {}, h("td", { text: d.title }), h("td", { text: names[d.account_id] }),
      h("td", { text: d.kind === "tax_form" ? "Tax form" : "Statement" }), h("td", { text: d.period }), h("td", { text: day(d.issued_at) })));
    show(h("section", { class: "panel" }, h("h1", { text: "Documents" }), tabs, table(["Document", "Account", "Type", "Period", "Issued"], rows, "No documents of this type.")));
  }

  const PAGES = { portfolio, account, markets, quote, orders, transfers, watchlists, automations, documents };

  async function header() {
    try {
      const me = await api("GET", "/me");
      document.getElementById("who").textContent = me.name;
    } catch (err) { /* the page itself reports errors */ }
  }

  async function route() {
    const notice = document.getElementById("notice");
    try { await PAGES[body.dataset.page](); } catch (err) { failPage(err); return; }
    if (notice && !document.getElementById("notice")) app.insertBefore(notice, app.firstChild);
  }

  sideMenu();
  header();
  route();
})();
