/* Staywell: shared helpers for every page (API calls, errors, toasts, dialogs, formatting, header). */
(function () {
  "use strict";
  const body = document.body;
  const BASE = body.dataset.base;   // "/env/booking"
  const API = body.dataset.api;     // "/api/env/booking"

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
      throw new ApiError(0, "We couldn't reach Staywell. Check your connection and try again.");
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
    if (status >= 500) return "Something went wrong on our side. Please try again.";
    return "That didn't work. Please try again.";
  }

  function loginUrl(err) {
    const here = location.pathname + location.search;
    const target = (err && err.loginUrl) || BASE + "/relogin";
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
      toast(message, "error", { label: "Reload", run: () => location.reload() }, 12000);
    } else if (status === 0 || status >= 500) {
      toast(message, "error", retry ? { label: "Try again", run: retry } : null, 10000);
    } else {
      toast(message, "error", null, 8000);
    }
  }

  /* An error panel in place of content that failed to load. */
  function errorPanel(target, err, retry) {
    let action = `<button class="btn" type="button" data-retry>Try again</button>`;
    if (err && err.status === 401) action = `<a class="btn btn-brand" href="${esc(loginUrl(err))}">Sign in</a>`;
    if (err && err.status === 429 && err.retryAfter) action = `<button class="btn" type="button" data-retry>Try again in a moment</button>`;
    target.innerHTML = `<div class="alert error" role="alert"><span>${esc((err && err.detail) || "Something went wrong.")}</span>${action}</div>`;
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
    const life = timeout === undefined ? 5000 : timeout;
    if (life > 0) setTimeout(() => el.remove(), life);
  }

  /* A modal dialog; resolves true when the confirm button is pressed, false otherwise. */
  function confirmDialog({ title, html, confirm, cancel, danger }) {
    return new Promise((resolve) => {
      const backdrop = document.createElement("div");
      backdrop.className = "modal-backdrop";
      backdrop.innerHTML = `<div class="modal" role="dialog" aria-modal="true" aria-labelledby="modal-title">
        <h2 id="modal-title">${esc(title)}</h2><div>${html || ""}</div>
        <div class="actions"><button class="btn" type="button" data-no>${esc(cancel || "Cancel")}</button>
        <button class="btn ${danger ? "btn-danger solid" : "btn-brand"}" type="button" data-yes>${esc(confirm || "Confirm")}</button></div></div>`;
      function done(answer) { backdrop.remove(); document.removeEventListener("keydown", onKey); resolve(answer); }
      function onKey(event) { if (event.key === "Escape") done(false); }
      backdrop.querySelector("[data-no]").addEventListener("click", () => done(false));
      backdrop.querySelector("[data-yes]").addEventListener("click", () => done(true));
      backdrop.addEventListener("click", (event) => { if (event.target === backdrop) done(false); });
      document.addEventListener("keydown", onKey);
      document.body.appendChild(backdrop);
      backdrop.querySelector("[data-yes]").focus();
    });
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

  function money(cents, whole) {
    const sign = cents < 0 ? "-" : "";
    const abs = Math.abs(cents);
    const dollars = "$" + Math.floor(abs / 100).toLocaleString("en-US");
    if (whole && abs % 100 === 0) return sign + dollars;
    return sign + dollars + "." + String(abs % 100).padStart(2, "0");
  }

  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December"];

  function parseDate(iso) {
    const [y, m, d] = String(iso).slice(0, 10).split("-").map(Number);
    return new Date(Date.UTC(y, m - 1, d));
  }
  function isoDate(date) { return date.toISOString().slice(0, 10); }
  function addDays(iso, days) { const d = parseDate(iso); d.setUTCDate(d.getUTCDate() + days); return isoDate(d); }
  function nightsBetween(a, b) { return Math.round((parseDate(b) - parseDate(a)) / 86400000); }
  /* "Friday 13 March 2026" */
  function longDate(iso) {
    const d = parseDate(iso);
    return `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  }
  /* "Fri 13 Mar" */
  function shortDate(iso) {
    const d = parseDate(iso);
    return `${DAYS[d.getUTCDay()].slice(0, 3)} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()].slice(0, 3)}`;
  }
  function dateTime(iso) {
    const d = new Date(iso);
    return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()].slice(0, 3)} ${d.getUTCFullYear()}, ${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
  }
  function plural(n, one, many) { return `${n} ${n === 1 ? one : (many || one + "s")}`; }

  function stars(count) {
    return `<span class="stars" aria-label="${count}-star property" title="${count}-star property">${"★".repeat(count)}</span>`;
  }
  function score(hotel, withCount) {
    const count = withCount ? `<span class="count">${hotel.review_count.toLocaleString("en-US")} reviews</span>` : "";
    return `<span class="score"><span class="num" aria-label="Guest rating ${hotel.rating.toFixed(1)} out of 10">${hotel.rating.toFixed(1)}</span><span><span class="word">${esc(hotel.rating_word)}</span><br>${count}</span></span>`;
  }

  /* A photo placeholder: a coloured sky and a building skyline drawn in SVG, varied by `seed`. */
  function photo(hue, seed, extraClass) {
    const s = (seed || 0) % 5;
    const shapes = [
      `<rect x="8" y="40" width="26" height="60" /><rect x="38" y="22" width="30" height="78" /><rect x="72" y="48" width="22" height="52" />`,
      `<path d="M0 100V55l20-12 20 12v45z" /><rect x="44" y="30" width="24" height="70" /><path d="M70 100V50l15-10 15 10v50z" />`,
      `<rect x="10" y="35" width="80" height="65" /><path d="M6 38L50 12l44 26z" />`,
      `<rect x="4" y="60" width="20" height="40" /><rect x="28" y="44" width="20" height="56" /><rect x="52" y="52" width="20" height="48" /><rect x="76" y="38" width="20" height="62" />`,
      `<path d="M0 100V70q25-30 50 0t50 0v30z" /><rect x="30" y="34" width="40" height="50" rx="4" />`,
    ][s];
    const windows = `<g fill="hsla(45,90%,85%,.85)">${[0, 1, 2, 3].map((i) => `<rect x="${18 + i * 18}" y="${62 + (i % 2) * 10}" width="5" height="6" />`).join("")}</g>`;
    return `<div class="photo ${extraClass || ""}" style="--h:${hue}" role="img" aria-label="Photo"><svg viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true"><g fill="hsla(${(hue + 190) % 360},25%,22%,.55)">${shapes}</g>${windows}</svg></div>`;
  }

  function params() { return new URLSearchParams(location.search); }
  function brandCode(brand) { return { Visa: "VISA", Mastercard: "MC", "American Express": "AMEX" }[brand] || brand.slice(0, 4).toUpperCase(); }

  /* Header: the traveller's name and their number of upcoming trips. */
  async function loadHeader() {
    try {
      const me = await api("GET", "/me");
      const name = document.getElementById("account-name");
      const initials = document.getElementById("account-initials");
      if (name) name.textContent = me.first_name || "Account";
      if (initials) initials.textContent = (me.name || "?").split(" ").map((p) => p[0]).join("").slice(0, 2);
      const count = document.getElementById("trip-count");
      if (count && me.upcoming_trips) { count.textContent = me.upcoming_trips; count.hidden = false; }
      SW.today = me.today;
      return me;
    } catch (err) {
      if (err.status === 401) reportError(err);
      return null;
    }
  }

  const SW = {
    BASE, API, ApiError, api, reportError, errorPanel, loading, toast, confirmDialog, busy, esc, money,
    parseDate, isoDate, addDays, nightsBetween, longDate, shortDate, dateTime, plural, stars, score, photo,
    params, brandCode, loadHeader, today: null, MONTHS, DAYS,
  };
  SW.ready = loadHeader();
  window.SW = SW;
})();
