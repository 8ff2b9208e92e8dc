/* The site kit's browser helper, one file for every website (served at /env-static/site.js).

   It carries the contract between a site's pages and its API: JSON calls that throw `ApiError`
   (status, detail, Retry-After, login URL), toasts, error panels and the 401 rule (a session that
   expired offers "Sign in" to the page the server names, else the site's sign-in page). A site's
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
      throw new ApiError(0, `We couldn't reach ${config.name}. Check your connection and try again.`);
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

  window.Site = {
    BASE, API, ApiError, api, reportError, errorPanel, loading, toast, busy, esc, params, loginUrl, configure,
    page: body.dataset.page,
    main: document.getElementById("app"),
  };
})();
