/* Brightcart: shared helpers for every page (API calls, errors, toasts, header, product cards). */
(function () {
  "use strict";
  const body = document.body;
  const BASE = body.dataset.base;      // "/env/shop"
  const API = body.dataset.api;        // "/api/env/shop"

  class ApiError extends Error {
    constructor(status, detail, retryAfter, loginUrl) {
      super(detail);
      this.status = status;
      this.detail = detail;
      this.retryAfter = retryAfter;
      this.loginUrl = loginUrl || null;
    }
  }

  async function api(method, path, payload) {
    const options = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (payload !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(payload);
    }
    let response;
    try {
      response = await fetch(API + path, options);
    } catch (err) {
      throw new ApiError(0, "We couldn't reach the store. Check your connection and try again.");
    }
    let data = null;
    const text = await response.text();
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
    if (status >= 500) return "Something went wrong on our side. Please try again.";
    return "That didn't work. Please try again.";
  }

  /* Where to sign in again: the page the server names (an expired session), else our sign-in page. */
  function loginUrl(err) {
    const here = location.pathname + location.search;
    const target = (err && err.loginUrl) || BASE + "/login";
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
      toast("Too many requests." + wait, "error", retry ? { label: "Retry", run: retry } : null, 8000);
    } else if (status === 409) {
      toast(message, "error", { label: "Reload", run: () => location.reload() }, 9000);
    } else if (status === 0 || status >= 500) {
      toast(message, "error", retry ? { label: "Try again", run: retry } : null, 9000);
    } else {
      toast(message, "error", null, 7000);
    }
  }

  /* An error panel in place of content that failed to load. */
  function errorPanel(target, err, retry) {
    const status = err && err.status;
    let action = `<button class="btn" type="button" data-retry>Try again</button>`;
    if (status === 401) action = `<a class="btn btn-blue" href="${esc(loginUrl(err))}">Sign in</a>`;
    target.innerHTML = `<div class="alert error" role="alert"><span>${esc(err.detail || "Something went wrong.")}</span>${action}</div>`;
    const button = target.querySelector("[data-retry]");
    if (button && retry) button.addEventListener("click", retry);
  }

  function loading(target, text) {
    target.innerHTML = `<div class="loading" role="status"><div class="spinner"></div><span>${esc(text || "Loading…")}</span></div>`;
  }

  function toast(message, kind, action, timeout) {
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
    el.innerHTML = `<span style="flex:1">${esc(message)}</span>`;
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
    const life = timeout === undefined ? 4500 : timeout;
    if (life > 0) setTimeout(() => el.remove(), life);
  }

  /* Run a write with the button disabled and a spinner, then report success or the error. */
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

  function money(cents) {
    const sign = cents < 0 ? "-" : "";
    const abs = Math.abs(cents);
    return sign + "$" + Math.floor(abs / 100).toLocaleString("en-US") + "." + String(abs % 100).padStart(2, "0");
  }

  function date(iso, withYear) {
    if (!iso) return "";
    const d = new Date(iso);
    const opts = { month: "short", day: "numeric", timeZone: "UTC" };
    if (withYear !== false) opts.year = "numeric";
    return d.toLocaleDateString("en-US", opts);
  }

  function stars(rating) {
    const full = Math.round(rating);
    let out = "";
    for (let i = 1; i <= 5; i++) out += full >= i ? "★" : "☆";
    return `<span class="stars" aria-hidden="true">${out}</span><span class="visually-hidden">${rating} out of 5 stars</span>`;
  }

  const GLYPHS = {
    round: '<circle cx="60" cy="45" r="22" fill="#fff" opacity=".92"/><circle cx="60" cy="45" r="9" fill="currentColor" opacity=".5"/>',
    tall: '<rect x="48" y="14" width="24" height="62" rx="9" fill="#fff" opacity=".92"/><rect x="52" y="8" width="16" height="9" rx="3" fill="#fff" opacity=".8"/>',
    box: '<rect x="32" y="22" width="56" height="46" rx="6" fill="#fff" opacity=".92"/><rect x="32" y="22" width="56" height="12" rx="4" fill="currentColor" opacity=".25"/>',
    wear: '<path d="M40 22 L52 16 Q60 24 68 16 L80 22 L90 36 L80 42 L78 74 L42 74 L40 42 L30 36 Z" fill="#fff" opacity=".92"/>',
    shoe: '<path d="M26 58 Q28 40 40 38 L54 44 Q66 50 84 52 Q96 54 94 66 L26 66 Z" fill="#fff" opacity=".92"/><rect x="26" y="64" width="68" height="6" rx="3" fill="currentColor" opacity=".35"/>',
    flat: '<rect x="24" y="34" width="72" height="26" rx="6" fill="#fff" opacity=".92"/><rect x="30" y="40" width="34" height="4" rx="2" fill="currentColor" opacity=".3"/>',
    cup: '<path d="M38 26 H78 V60 Q78 72 66 72 H50 Q38 72 38 60 Z" fill="#fff" opacity=".92"/><path d="M78 34 Q92 34 90 46 Q88 56 78 56" stroke="#fff" stroke-width="6" fill="none" opacity=".92"/>',
    headset: '<path d="M32 56 V46 Q32 20 60 20 Q88 20 88 46 V56" stroke="#fff" stroke-width="7" fill="none"/><rect x="26" y="48" width="16" height="24" rx="6" fill="#fff"/><rect x="78" y="48" width="16" height="24" rx="6" fill="#fff"/>',
    book: '<rect x="36" y="16" width="48" height="60" rx="4" fill="#fff" opacity=".92"/><rect x="42" y="16" width="5" height="60" fill="currentColor" opacity=".3"/>',
    toy: '<rect x="30" y="44" width="22" height="22" rx="3" fill="#fff"/><rect x="56" y="44" width="22" height="22" rx="3" fill="#fff" opacity=".8"/><rect x="43" y="22" width="22" height="22" rx="3" fill="#fff" opacity=".9"/>',
  };
  const ICON_GLYPH = {
    headphones: "headset", earbuds: "headset", speaker: "round", battery: "box", cable: "flat", charger: "box",
    camera: "round", mouse: "round", kettle: "cup", mug: "cup", pan: "round", dripper: "cup", board: "flat",
    container: "box", blanket: "flat", scale: "flat", shirt: "wear", hoodie: "wear", jacket: "wear", socks: "wear",
    pants: "wear", vest: "wear", shoe: "shoe", boot: "shoe", slipper: "shoe", bottle: "tall", mat: "flat",
    band: "round", dumbbell: "flat", backpack: "box", hammock: "flat", roller: "flat", rope: "round", jar: "box",
    tube: "tall", toothbrush: "tall", trimmer: "tall", brush: "tall", dropper: "tall", notebook: "book", pen: "tall",
    lamp: "tall", cushion: "flat", riser: "flat", keyboard: "flat", pad: "flat", puzzle: "toy", blocks: "toy",
    dice: "toy", rainbow: "round", car: "box", cards: "book", plush: "round",
  };

  function productImage(image, label) {
    const hue = image ? image.hue : 210;
    const glyph = GLYPHS[ICON_GLYPH[image && image.icon] || "box"];
    const id = "g" + Math.random().toString(36).slice(2, 8);
    return `<svg class="product-img" viewBox="0 0 120 90" role="img" aria-label="${esc(label || "Product image")}" style="color:hsl(${hue},45%,30%)">
      <defs><linearGradient id="${id}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},62%,72%)"/><stop offset="1" stop-color="hsl(${(hue + 30) % 360},55%,52%)"/></linearGradient></defs>
      <rect width="120" height="90" fill="url(#${id})"/><ellipse cx="60" cy="80" rx="36" ry="5" fill="#000" opacity=".08"/>${glyph}</svg>`;
  }

  function priceHtml(card) {
    let html = `<span>${money(card.price_cents)}</span>`;
    if (card.list_price_cents && card.list_price_cents > card.price_cents) {
      const pct = Math.round((1 - card.price_cents / card.list_price_cents) * 100);
      html += `<span class="was">${money(card.list_price_cents)}</span><span class="save">-${pct}%</span>`;
    }
    return `<div class="price">${html}</div>`;
  }

  function stockHtml(card) {
    if (!card.in_stock) return `<span class="stock-out">Out of stock</span>`;
    if (card.low_stock) return `<span class="stock-low">Only a few left</span>`;
    return `<span class="stock-ok">In stock</span>`;
  }

  function productCard(card) {
    const href = `${BASE}/p/${encodeURIComponent(card.id)}`;
    return `<article class="product-card">
      <a class="cover" href="${href}" tabindex="-1" aria-hidden="true">${productImage(card.image, card.name)}</a>
      <div class="body">
        <span class="brand">${esc(card.brand)}</span>
        <a class="title" href="${href}">${esc(card.name)}</a>
        <div class="rating-line">${stars(card.rating)}<span>${card.rating.toFixed(1)} (${card.review_count.toLocaleString("en-US")})</span></div>
        ${priceHtml(card)}
        ${stockHtml(card)}
      </div>
    </article>`;
  }

  async function refreshHeader() {
    try {
      const me = await api("GET", "/me");
      const cart = document.getElementById("cart-count");
      const bell = document.getElementById("unread-count");
      const who = document.getElementById("account-greeting");
      if (cart) { cart.textContent = me.cart_count; cart.hidden = !me.cart_count; }
      if (bell) { bell.textContent = me.unread_notifications; bell.hidden = !me.unread_notifications; }
      if (who) who.textContent = me.signed_in ? `Hello, ${me.first_name}` : "Hello, sign in";
      const accountLink = document.getElementById("account-link");
      if (accountLink && !me.signed_in) accountLink.href = BASE + "/login";
      return me;
    } catch (err) {
      return null;
    }
  }

  function params() { return new URLSearchParams(location.search); }

  function setupHeader() {
    const select = document.getElementById("search-category");
    const current = params().get("category");
    if (select && current) select.value = current;
    const input = document.getElementById("search-input");
    const q = params().get("q");
    if (input && q) input.value = q;
    refreshHeader();
  }

  window.Shop = {
    BASE, API, ApiError, api, reportError, errorPanel, loading, toast, busy, esc, money, date, stars,
    productImage, productCard, priceHtml, stockHtml, refreshHeader, params,
    page: body.dataset.page,
    main: document.getElementById("app"),
  };
  setupHeader();
})();
