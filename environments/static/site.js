/* The site kit's browser helper, one file for every website (served at /env-static/site.js).

   It carries the contract between a site's pages and its API: JSON calls that throw `ApiError`
   (status, detail, Retry-After, login URL) and are sent again while the server itself is briefly
   unavailable (its marked 503), toasts, error panels and the 401 rule (a session that
   expired offers "Sign in" to the page the server names, else the site's sign-in page), and the
   small DOM helpers `h` (build an element) and `show` (replace the page's content). A site's
   own script (shop.js, mail.js, staywell.js) loads after it, calls `Site.configure({...})` once and
   builds its own helpers on `window.Site`. The page body carries `data-base` and `data-api`. */
(function () {
  "use strict";
  const body = document.body;
  const BASE = body.dataset.base;   // "/env/<site>"
  const API = body.dataset.api;     // "/api/env/<site>"

  const config = {
    name: "the site",          // "We couldn't reach <name>."
    loginPath: "/relogin",     // the sign-in page under BASE when the server names none
    primaryButton: "primary",  // the class (besides "btn") of an error panel's "Sign in" button
    serverError: "Something went wrong on our side. Please try again.",  // a 5xx without a detail
  };

  function configure(options) { Object.assign(config, options || {}); }

  class ApiError extends Error {
    constructor(status, detail, retryAfter, loginUrl) {
      super(detail);
      this.status = status;
      this.detail = detail;
      this.retryAfter = retryAfter;
      this.loginUrl = loginUrl || null;
    }
  }

  /* The server's own short outage (its database restarting): it marks that 503, and a call is sent
     again after these pauses (about 20 s in all) before the page shows an error. Any other 5xx is
     an answer the site gives by design and is shown as it is. */
  const RETRY_DELAYS_MS = [500, 1000, 2000, 4000, 4000, 4000, 4000];

  function serverBusy(response) {
    return response.status === 503 && response.headers.get("X-Humantrace-Retry") === "database";
  }

  async function api(method, path, payload) {
    const options = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (payload !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(payload);
    }
    let response;
    for (let tries = 0; ; tries++) {
      try {
        response = await fetch(API + path, options);
      } catch (err) {
        throw new ApiError(0, `We couldn't reach ${config.name}. Check your connection and try again.`);
      }
      if (!serverBusy(response)) break;
      if (tries >= RETRY_DELAYS_MS.length) {
        throw new ApiError(503, `We couldn't reach ${config.name} just now. Please try again in a moment.`, 0);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[tries]));
    }
    const text = await response.text();
    let data = null;
    if (text) {
      try { data = JSON.parse(text); } catch (err) { data = null; }
    }
    if (!response.ok) {
      let detail = data && data.detail;
      if (Array.isArray(detail)) detail = detail.map((d) => d.msg).join("; ");
      const retryAfter = parseInt(response.headers.get("Retry-After") || "0", 10) || 0;
      throw new ApiError(response.status, detail || defaultMessage(response.status), retryAfter, data && data.login_url);
    }
    return data || {};
  }

  function defaultMessage(status) {
    if (status === 401) return "Your session has expired. Please sign in again.";
    if (status === 409) return "This changed while you were working on it. Reload and try again.";
    if (status === 429) return "You're going a little fast. Please wait a moment and try again.";
    if (status >= 500) return config.serverError;
    return "That didn't work. Please try again.";
  }

  /* Where to sign in again: the page the server names (an expired session), else the site's sign-in page. */
  function loginUrl(err) {
    const here = location.pathname + location.search;
    const target = (err && err.loginUrl) || BASE + config.loginPath;
    return target + "?next=" + encodeURIComponent(here);
  }

  /* Show an API failure so a person can recover: sign in again, retry, or reload. */
  function reportError(err, retry) {
    const status = err && err.status;
    const message = (err && err.detail) || "Something went wrong. Please try again.";
    if (status === 401) {
      toast(message, "error", { label: "Sign in", run: () => { location.href = loginUrl(err); } }, 0);
    } else if (status === 429) {
      const wait = err.retryAfter ? ` Try again in ${err.retryAfter} s.` : "";
      toast("Too many requests." + wait, "error", retry ? { label: "Retry", run: retry } : null, 9000);
    } else if (status === 409) {
      toast(message, "error", { label: "Reload", run: () => location.reload() }, 10000);
    } else if (status === 0 || status >= 500) {
      toast(message, "error", retry ? { label: "Try again", run: retry } : null, 10000);
    } else {
      toast(message, "error", null, 8000);
    }
  }

  /* An error panel in place of content that failed to load. */
  function errorPanel(target, err, retry) {
    let action = `<button class="btn" type="button" data-retry>Try again</button>`;
    if (err && err.status === 401) action = `<a class="btn ${config.primaryButton}" href="${esc(loginUrl(err))}">Sign in</a>`;
    if (err && err.status === 429 && err.retryAfter) action = `<button class="btn" type="button" data-retry>Try again in a moment</button>`;
    target.innerHTML = `<div class="alert error" role="alert"><span>${esc((err && err.detail) || "Something went wrong.")}</span>${action}</div>`;
    const button = target.querySelector("[data-retry]");
    if (button && retry) button.addEventListener("click", retry);
  }

  function loading(target, text) {
    target.innerHTML = `<div class="loading" role="status"><span class="spinner"></span><span>${esc(text || "Loading…")}</span></div>`;
  }

  /* ---- UI profiles (environments/ui.py): which build of a control this page shows ---- */
  const root = document.documentElement;

  /* The build of control `key` in this session's UI profile ("default" when it changes none). */
  function ui(key) { return root.getAttribute("data-ui-" + key) || "default"; }

  /* confirmation=inline: a confirmation appears in the page, above the content, until the next one. */
  function inlineConfirmation(message, kind, action) {
    let holder = document.querySelector(".ui-confirmation");
    if (!holder) {
      holder = document.createElement("div");
      holder.className = "ui-confirmation";
      holder.setAttribute("role", "status");
      holder.setAttribute("aria-live", "polite");
      const main = document.getElementById("app") || document.querySelector("main") || document.body;
      main.parentNode.insertBefore(holder, main);
    }
    holder.innerHTML = "";
    const el = document.createElement("div");
    el.className = "ui-confirmation-message " + (kind || "");
    const text = document.createElement("span");
    text.textContent = message;
    el.appendChild(text);
    if (action) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "btn";
      button.textContent = action.label;
      button.addEventListener("click", () => { el.remove(); action.run(); });
      el.appendChild(button);
    }
    holder.appendChild(el);
  }

  function toast(message, kind, action, timeout) {
    if (kind !== "error" && ui("confirmation") === "inline") {
      inlineConfirmation(message, kind, action);
      return;
    }
    let holder = document.querySelector(".toasts");
    if (!holder) {
      holder = document.createElement("div");
      holder.className = "toasts";
      holder.setAttribute("aria-live", "polite");
      document.body.appendChild(holder);
    }
    const el = document.createElement("div");
    el.className = "toast " + (kind || "");
    el.setAttribute("role", kind === "error" ? "alert" : "status");
    const text = document.createElement("span");
    text.style.flex = "1";
    text.textContent = message;
    el.appendChild(text);
    if (action) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = action.label;
      button.addEventListener("click", () => { el.remove(); action.run(); });
      el.appendChild(button);
    }
    const close = document.createElement("button");
    close.type = "button";
    close.className = "close";
    close.setAttribute("aria-label", "Dismiss");
    close.textContent = "×";
    close.addEventListener("click", () => el.remove());
    el.appendChild(close);
    holder.appendChild(el);
    const life = timeout === undefined ? 5000 : timeout;
    if (life > 0) setTimeout(() => el.remove(), life);
  }

  /* Run a write with the button disabled and a spinner. */
  async function busy(button, work) {
    const label = button ? button.innerHTML : "";
    if (button) {
      button.disabled = true;
      button.innerHTML = `<span class="spinner"></span> ${label}`;
    }
    try {
      return await work();
    } finally {
      if (button && button.isConnected) {
        button.disabled = false;
        button.innerHTML = label;
      }
    }
  }

  function esc(value) {
    return String(value === null || value === undefined ? "" : value)
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  function params() { return new URLSearchParams(location.search); }

  /* An element: `h("a", { href, class: "x", onclick: fn, text: "…" }, ...children)`. Attributes that
     are null, undefined or false are left out (true sets an empty one); `on…` keys add listeners;
     children are nodes or text (nested arrays are flattened, null/undefined/false skipped). */
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

  /* Replace the page's content (`#app`) with `nodes`. */
  function show(...nodes) { document.getElementById("app").replaceChildren(...nodes); }

  /* button=icon: a button with `data-icon="<name>"` shows only its icon; its words become its
     accessible name (aria-label) and tooltip. A button whose words change is re-read. */
  const ICONS = {  // symbols the common system fonts carry (no colour emoji needed)
    add: "+", archive: "▤", back: "←", bell: "♪", calendar: "▦", cart: "⊕", check: "✓",
    close: "×", delete: "⌫", down: "▼", edit: "✎", flag: "⚑", forward: "→", heart: "♥", inbox: "✉",
    message: "✉", minus: "−", more: "⋯", pause: "‖", pin: "⚲", play: "▶", plus: "+", refresh: "↻",
    reply: "↩", save: "★", search: "⌕", send: "➤", settings: "⚙", star: "★", trash: "⌫", undo: "↶",
    up: "▲", upload: "⇪", vote: "▲", x: "×",
  };

  function iconify(button) {
    const glyph = ICONS[button.dataset.icon] || "●";
    const text = button.textContent.replace(/\s+/g, " ").trim();
    if (button.dataset.iconShown === "1" && (text === glyph || text === "")) return;
    if (text && text !== glyph) {
      button.setAttribute("aria-label", text);
      button.title = text;
    }
    button.dataset.iconShown = "1";
    button.classList.add("ui-icon-button");
    button.innerHTML = `<span aria-hidden="true">${glyph}</span>`;
  }

  /* select=custom: each native <select> (but those marked data-native) is hidden behind a combobox
     button and a listbox that is in the page only while open. The native select keeps the value
     (site code reads and listens to it as before); choosing an option sets it and fires input and
     change. The wrapper carries the select's classes, so a site's masking selectors still match. */
  function labelOf(select) {
    if (select.getAttribute("aria-label")) return select.getAttribute("aria-label");
    const label = select.labels && select.labels[0];
    if (label) return label.textContent.replace(/\s+/g, " ").trim();
    return select.getAttribute("title") || select.name || "Choose";
  }

  function customSelect(select) {
    if (select.dataset.native !== undefined || select.dataset.uiCustom) return;
    select.dataset.uiCustom = "1";
    const wrap = document.createElement("span");
    wrap.className = "ui-select " + select.className;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "ui-select-button";
    button.setAttribute("role", "combobox");
    button.setAttribute("aria-haspopup", "listbox");
    button.setAttribute("aria-expanded", "false");
    wrap.appendChild(button);
    select.style.display = "none";
    select.insertAdjacentElement("afterend", wrap);
    let list = null;

    function sync() {
      const chosen = select.options[select.selectedIndex];
      button.setAttribute("aria-label", labelOf(select));
      button.textContent = (chosen ? chosen.textContent.trim() : "") || "Choose…";
      button.disabled = select.disabled;
    }
    function close() {
      if (!list) return;
      list.remove();
      list = null;
      button.setAttribute("aria-expanded", "false");
      document.removeEventListener("click", outside, true);
    }
    function outside(event) { if (!wrap.contains(event.target)) close(); }
    function pick(index) {
      close();
      if (select.selectedIndex !== index) {
        select.selectedIndex = index;
        select.dispatchEvent(new Event("input", { bubbles: true }));
        select.dispatchEvent(new Event("change", { bubbles: true }));
      }
      sync();
      button.focus();
    }
    function open() {
      list = document.createElement("ul");
      list.className = "ui-select-list";
      list.setAttribute("role", "listbox");
      list.setAttribute("aria-label", labelOf(select));
      Array.from(select.options).forEach((option, index) => {
        const item = document.createElement("li");
        item.setAttribute("role", "option");
        item.textContent = option.textContent.trim();
        item.dataset.value = option.value;
        item.tabIndex = -1;
        item.setAttribute("aria-selected", String(index === select.selectedIndex));
        if (option.disabled) item.setAttribute("aria-disabled", "true");
        else item.addEventListener("click", () => pick(index));
        item.addEventListener("keydown", (event) => {
          const items = Array.from(list.children);
          const at = items.indexOf(item);
          if (event.key === "ArrowDown" && items[at + 1]) { event.preventDefault(); items[at + 1].focus(); }
          if (event.key === "ArrowUp" && items[at - 1]) { event.preventDefault(); items[at - 1].focus(); }
          if ((event.key === "Enter" || event.key === " ") && !option.disabled) { event.preventDefault(); pick(index); }
          if (event.key === "Escape") { close(); button.focus(); }
        });
        list.appendChild(item);
      });
      wrap.appendChild(list);
      button.setAttribute("aria-expanded", "true");
      document.addEventListener("click", outside, true);
      const current = list.children[Math.max(select.selectedIndex, 0)];
      if (current) current.focus();
    }
    button.addEventListener("click", () => { if (list) close(); else open(); });
    button.addEventListener("keydown", (event) => {
      if ((event.key === "ArrowDown" || event.key === "Enter" || event.key === " ") && !list) { event.preventDefault(); open(); }
    });
    select.addEventListener("change", sync);
    new MutationObserver(sync).observe(select, { childList: true, subtree: true, attributes: true });
    sync();
  }

  function applyProfile(scope) {
    if (ui("select") === "custom") {
      if (scope.tagName === "SELECT") customSelect(scope);
      scope.querySelectorAll && scope.querySelectorAll("select").forEach(customSelect);
    }
    if (ui("button") === "icon") {
      if (scope.dataset && scope.dataset.icon !== undefined) iconify(scope);
      scope.querySelectorAll && scope.querySelectorAll("[data-icon]").forEach(iconify);
    }
  }

  /* The kit builds' look: neutral, inheriting the site's font and colours. */
  const KIT_CSS = `
    .ui-select { position: relative; display: inline-block; }
    .ui-select-button { font: inherit; min-width: 9em; text-align: left; padding: .35em 2em .35em .6em;
      border: 1px solid #8a8f98; border-radius: 6px; background: #fff; color: #1d1f23; cursor: pointer; position: relative; }
    .ui-select-button::after { content: "▾"; position: absolute; right: .6em; top: 50%; transform: translateY(-50%); }
    .ui-select-button:focus-visible, .ui-select-list li:focus { outline: 2px solid #2456b3; outline-offset: 1px; }
    .ui-select-list { position: absolute; z-index: 50; left: 0; top: 100%; margin: 2px 0 0; padding: 4px 0; min-width: 100%;
      max-height: 18em; overflow-y: auto; list-style: none; background: #fff; color: #1d1f23;
      border: 1px solid #8a8f98; border-radius: 6px; box-shadow: 0 6px 18px rgba(0,0,0,.18); }
    .ui-select-list li { padding: .35em .8em; cursor: pointer; white-space: nowrap; }
    .ui-select-list li:hover, .ui-select-list li[aria-selected="true"] { background: #e8eefb; }
    .ui-select-list li[aria-disabled="true"] { color: #6b7078; cursor: default; }
    .ui-confirmation { margin: .5rem auto; max-width: 72rem; }
    .ui-confirmation-message { display: flex; gap: .8em; align-items: center; padding: .6em .9em;
      border: 1px solid #2f7d4a; border-left-width: 5px; border-radius: 6px; background: #eef8f1; color: #173d25; }
    .ui-icon-button { min-width: 2.2em; }
  `;
  if (ui("select") === "custom" || ui("button") === "icon" || ui("confirmation") === "inline") {
    const style = document.createElement("style");
    style.textContent = KIT_CSS;
    document.head.appendChild(style);
  }

  if (ui("select") === "custom" || ui("button") === "icon") {
    applyProfile(document.body);
    new MutationObserver((records) => {
      for (const record of records) {
        if (record.type === "characterData") {
          const owner = record.target.parentElement && record.target.parentElement.closest("[data-icon]");
          if (owner) applyProfile(owner);
          continue;
        }
        const owner = record.target.closest && record.target.closest("[data-icon]");
        if (owner) applyProfile(owner);
        record.addedNodes.forEach((node) => { if (node.nodeType === 1) applyProfile(node); });
      }
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  }

  window.Site = {
    BASE, API, ApiError, api, reportError, errorPanel, loading, toast, busy, esc, params, loginUrl, configure, ui, h, show,
    page: body.dataset.page,
    main: document.getElementById("app"),
  };
})();
