/* Larkspur Health's helpers on top of the kit's site.js: elements, money and dates, the notice
   region, confirmation dialogs, tables and form fields. Every page renderer lives in pages.js. */
(function () {
  "use strict";
  Site.configure({ name: "Larkspur Health", loginPath: "/relogin", primaryButton: "primary" });
  const app = Site.main;

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function money(cents) {
    const sign = cents < 0 ? "-" : "";
    const abs = Math.abs(cents);
    return sign + "$" + Math.floor(abs / 100).toLocaleString("en-US") + "." + String(abs % 100).padStart(2, "0");
  }
  function cents(text) {
    const clean = String(text || "").replace(/[$,\s]/g, "");
    if (!/^\d+(\.\d{1,2})?$/.test(clean)) return null;
    const [whole, frac = ""] = clean.split(".");
    return parseInt(whole, 10) * 100 + parseInt((frac + "00").slice(0, 2), 10);
  }
  const UTC = { timeZone: "UTC" };
  function asDate(iso) { return new Date(iso.length === 10 ? iso + "T12:00:00Z" : iso); }
  function dateText(iso) { return iso ? asDate(iso).toLocaleDateString("en-US", { ...UTC, month: "short", day: "numeric", year: "numeric" }) : ""; }
  function longDate(iso) { return iso ? asDate(iso).toLocaleDateString("en-US", { ...UTC, weekday: "long", month: "long", day: "numeric", year: "numeric" }) : ""; }
  function dayName(iso) { return asDate(iso).toLocaleDateString("en-US", { ...UTC, weekday: "short", month: "short", day: "numeric" }); }
  function timeText(iso) { return asDate(iso).toLocaleTimeString("en-US", { ...UTC, hour: "numeric", minute: "2-digit" }); }
  function when(iso) { return `${longDate(iso)} at ${timeText(iso)}`; }
  function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

  function show(...nodes) {
    const notice = document.getElementById("notice");
    app.replaceChildren(...nodes);
    if (notice) app.insertBefore(notice, app.firstChild);
  }

  /* The notice region at the top of the page: the answer to the latest write (success or error). */
  function notice(message, kind) {
    const region = document.getElementById("notice") || app.insertBefore(h("div", { id: "notice" }), app.firstChild);
    region.replaceChildren(h("div", { class: "notice " + (kind || "error"), role: kind === "ok" ? "status" : "alert" }, message));
    region.scrollIntoView({ block: "nearest" });
  }

  function reportError(err) {
    if (err && err.status === 401) {
      notice(h("span", {}, (err.detail || "Your session has expired.") + " ", h("a", { href: Site.loginUrl(err) }, "Sign in again")));
      return;
    }
    notice((err && err.detail) || "Something went wrong. Please try again.");
  }

  function failPage(err) {
    app.replaceChildren(h("section", { class: "panel empty" }, h("h1", { text: "We couldn't load this page" }),
      h("p", { text: (err && err.detail) || "Please try again." }),
      h("button", { type: "button", class: "btn", onclick: () => location.reload() }, "Try again")));
    if (err && err.status === 401) reportError(err);
  }

  /* Ask before anything is booked, paid, sent or cancelled. Resolves true on confirm. */
  function confirmDialog(title, lines, confirmLabel, extra) {
    return new Promise((resolve) => {
      const dialog = h("dialog", { class: "confirm", "aria-labelledby": "confirm-title" });
      const done = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
      dialog.append(
        h("h2", { id: "confirm-title", text: title }),
        h("dl", {}, lines.map(([k, v]) => [h("dt", { text: k }), h("dd", {}, v)])),
        extra || "",
        h("div", { class: "actions" },
          h("button", { type: "button", class: "btn ghost", onclick: () => done(false) }, "Go back"),
          h("button", { type: "button", class: "btn primary", onclick: () => done(true) }, confirmLabel)));
      dialog.addEventListener("cancel", () => resolve(false));
      document.body.append(dialog);
      dialog.showModal();
    });
  }

  /* Run a write once: the button stays disabled until the server answers; errors go to the notice. */
  async function submit(button, action) {
    if (button && button.disabled) return null;
    if (button) button.disabled = true;
    const old = document.getElementById("notice");
    if (old) old.replaceChildren();
    try { return await action(); } catch (err) { reportError(err); return null; } finally { if (button) button.disabled = false; }
  }

  function table(headers, rows, emptyText, label) {
    if (!rows.length) return h("p", { class: "empty-row", text: emptyText });
    return h("table", { "aria-label": label || null }, h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col", text: t })))),
      h("tbody", {}, rows));
  }

  function field(label, id, control, hint) {
    control.id = id;
    return h("div", { class: "field" }, h("label", { for: id, text: label }), control, hint ? h("small", { text: hint }) : null);
  }

  function select(options, chosen) {
    return h("select", {}, options.map(([value, text]) => h("option", { value, selected: value === chosen }, text)));
  }

  function pill(text, kind) { return h("span", { class: "pill " + (kind || text.toLowerCase().replace(/\s+/g, "-")), text }); }

  function heading(title, ...actions) {
    return h("div", { class: "page-head" }, h("h1", { text: title }), h("div", { class: "page-actions" }, actions));
  }

  window.Portal = Object.assign({}, Site, {
    h, money, cents, dateText, longDate, dayName, timeText, when, plural, show, notice, reportError, failPage,
    confirmDialog, submit, table, field, select, pill, heading, app,
  });
})();
