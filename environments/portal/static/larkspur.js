/* Larkspur Health's helpers on top of the kit's site.js (API calls, toasts, the 401 rule, elements):
   money and dates, answers to writes, confirmation dialogs, tables, form fields, and the portal's
   own UI-profile builds (tabs=tablist, autocomplete=typeahead). Every page renderer lives in pages.js. */
(function () {
  "use strict";
  Site.configure({ name: "Larkspur Health", loginPath: "/relogin", primaryButton: "primary" });
  const { h } = Site;
  const app = Site.main;

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

  function show(...nodes) { app.replaceChildren(...nodes.flat(Infinity).filter((node) => node !== null && node !== undefined && node !== false)); }

  /* The answer to a write or a check: a confirmation ("ok") through the kit's toast (in the page
     under confirmation=inline), anything else an error toast. */
  function notice(message, kind) {
    if (kind === "ok") Site.toast(message, "success");
    else Site.toast(message, "error", null, 8000);
  }

  /* The answers of earlier writes go when a new one starts (the latest answer is the only one shown). */
  function clearAnswers() {
    document.querySelectorAll(".toasts .toast, .ui-confirmation-message").forEach((el) => el.remove());
  }

  function failPage(err) { Site.errorPanel(app, err, () => location.reload()); }

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

  /* Run a write once: the button stays disabled until the server answers; failures are shown by
     the kit's contract (an expired session offers "Sign in"). */
  async function submit(button, action) {
    if (button && button.disabled) return null;
    clearAnswers();
    try { return await Site.busy(button, action); } catch (err) { Site.reportError(err); return null; }
  }

  function table(headers, rows, emptyText, label) {
    if (!rows.length) return h("p", { class: "empty-row", text: emptyText });
    return h("table", { "aria-label": label || null }, h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col", text: t })))),
      h("tbody", {}, rows));
  }

  /* A labelled field. A select made with `select(..., { typeahead: true })` is a type-ahead combobox
     under autocomplete=typeahead. */
  function field(label, id, control, hint) {
    const typed = control.tagName === "SELECT" && control.dataset.typeahead !== undefined && Site.ui("autocomplete") === "typeahead";
    if (!typed) control.id = id;
    return h("div", { class: "field" }, h("label", { for: id, text: label }), typed ? typeahead(control, id, label) : control,
      hint ? h("small", { text: hint }) : null);
  }

  function select(options, chosen, opts) {
    return h("select", { "data-typeahead": (opts && opts.typeahead) || null },
      options.map(([value, text]) => h("option", { value, selected: value === chosen }, text)));
  }

  /* autocomplete=typeahead: a text field (role combobox) in place of a select; typing filters a
     listbox of the select's options, a click shows them all. Arrow keys move, Enter picks, Escape
     closes. The select stays (hidden) and keeps the value: picking sets it and fires change. */
  function typeahead(selectEl, id, label) {
    const listId = id + "-options";
    const input = h("input", { type: "text", id, class: "typeahead-input", role: "combobox", autocomplete: "off",
      "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": listId, placeholder: "Type to search" });
    const list = h("ul", { id: listId, class: "typeahead-list", role: "listbox", "aria-label": label, hidden: true });
    selectEl.id = id + "-value";
    selectEl.hidden = true;
    let shown = [];
    let active = -1;
    const chosenText = () => { const o = selectEl.options[selectEl.selectedIndex]; return o && o.value ? o.textContent : ""; };
    input.value = chosenText();

    function mark(index) {
      active = index;
      Array.from(list.children).forEach((li, i) => li.classList.toggle("active", i === index));
      if (index >= 0 && list.children[index]) {
        input.setAttribute("aria-activedescendant", list.children[index].id);
        list.children[index].scrollIntoView({ block: "nearest" });
      } else input.removeAttribute("aria-activedescendant");
    }
    function open(filter) {
      const words = (filter || "").toLowerCase();
      shown = Array.from(selectEl.options).filter((o) => !words || o.textContent.toLowerCase().includes(words));
      list.replaceChildren(...shown.map((o, i) => h("li", { id: `${listId}-${i}`, role: "option", "aria-selected": String(o.selected),
        "data-value": o.value, onmousedown: (e) => e.preventDefault(), onclick: () => pick(o) }, o.textContent)));
      if (!shown.length) list.append(h("li", { class: "none", role: "presentation", text: "No matches" }));
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      mark(-1);
    }
    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      mark(-1);
    }
    function pick(option) {
      close();
      input.value = option.value ? option.textContent : "";
      if (selectEl.value !== option.value) {
        selectEl.value = option.value;
        selectEl.dispatchEvent(new Event("input", { bubbles: true }));
        selectEl.dispatchEvent(new Event("change", { bubbles: true }));
      }
    }
    input.addEventListener("click", () => { if (list.hidden) open(""); });
    input.addEventListener("input", () => open(input.value.trim()));
    input.addEventListener("blur", () => { close(); input.value = chosenText(); });
    input.addEventListener("keydown", (e) => {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        if (list.hidden) { open(""); }
        if (!shown.length) return;
        const step = e.key === "ArrowDown" ? 1 : -1;
        mark(active < 0 ? (step > 0 ? 0 : shown.length - 1) : (active + step + shown.length) % shown.length);
      } else if (e.key === "Enter") {
        if (list.hidden) return;
        e.preventDefault();
        const option = active >= 0 ? shown[active] : shown.length === 1 ? shown[0] : null;
        if (option) pick(option);
      } else if (e.key === "Escape" && !list.hidden) {
        e.preventDefault();
        close();
        input.value = chosenText();
      }
    });
    return h("div", { class: "typeahead" }, input, list, selectEl);
  }

  /* Sections of a page: stacked panels with headings, or under tabs=tablist one panel with a tab
     list (role tablist/tab/tabpanel; arrow keys, Home and End move between tabs). `sections` is
     [[title, content], ...]; the first is shown first. */
  function sections(label, parts) {
    if (Site.ui("tabs") !== "tablist") return parts.map(([title, content]) => h("section", { class: "panel" }, h("h2", { text: title }), content));
    const key = label.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    const tabs = [];
    const panels = [];
    function select(index, focus) {
      tabs.forEach((tab, i) => {
        tab.setAttribute("aria-selected", String(i === index));
        tab.tabIndex = i === index ? 0 : -1;
        panels[i].hidden = i !== index;
      });
      if (focus) tabs[index].focus();
    }
    parts.forEach(([title, content], i) => {
      tabs.push(h("button", { type: "button", role: "tab", id: `tab-${key}-${i}`, "aria-controls": `panel-${key}-${i}`,
        onclick: () => select(i, false) }, title));
      panels.push(h("div", { role: "tabpanel", id: `panel-${key}-${i}`, "aria-labelledby": `tab-${key}-${i}`, tabindex: "0" }, content));
    });
    const list = h("div", { class: "tablist", role: "tablist", "aria-label": label }, tabs);
    list.addEventListener("keydown", (e) => {
      const at = tabs.indexOf(document.activeElement);
      if (at < 0) return;
      const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      select((next + tabs.length) % tabs.length, true);
    });
    select(0, false);
    return h("section", { class: "panel tabbed" }, list, panels);
  }

  function pill(text, kind) { return h("span", { class: "pill " + (kind || text.toLowerCase().replace(/\s+/g, "-")), text }); }

  function heading(title, ...actions) {
    return h("div", { class: "page-head" }, h("h1", { text: title }), h("div", { class: "page-actions" }, actions));
  }

  window.Portal = Object.assign({}, Site, {
    money, cents, dateText, longDate, dayName, timeText, when, plural, show, notice, failPage,
    confirmDialog, submit, table, field, select, sections, pill, heading, app,
  });
})();
