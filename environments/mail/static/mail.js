/* Parcel Mail: shared helpers for every page (API calls, errors, toasts, sidebar, formatting). */
(function () {
  "use strict";
  const body = document.body;
  Site.configure({ name: "Parcel Mail", primaryButton: "primary" });
  const { BASE, API, ApiError, api, reportError, errorPanel, loading, toast, busy, esc, params, loginUrl } = Site;

  /* A toast to show on the next page (after a navigation). */
  function toastNext(message) {
    try { sessionStorage.setItem("parcel:toast", message); } catch (err) { /* private mode */ }
  }
  function flushToast() {
    let message = null;
    try { message = sessionStorage.getItem("parcel:toast"); sessionStorage.removeItem("parcel:toast"); } catch (err) { /* */ }
    if (message) toast(message);
  }

  /* A small dialog with a message and buttons; resolves with the chosen button's value. */
  function confirmDialog(title, message, confirmLabel, danger) {
    return new Promise((resolve) => {
      const back = document.createElement("div");
      back.className = "modal-back";
      back.innerHTML = `<div class="modal" role="dialog" aria-modal="true" aria-labelledby="dlg-title">
        <h2 id="dlg-title">${esc(title)}</h2><p>${esc(message)}</p>
        <div class="actions"><button class="btn" type="button" data-v="0">Cancel</button>
        <button class="btn ${danger ? "danger" : "primary"}" type="button" data-v="1">${esc(confirmLabel)}</button></div></div>`;
      back.addEventListener("click", (event) => {
        const button = event.target.closest("button[data-v]");
        if (!button && event.target !== back) return;
        back.remove();
        resolve(button ? button.dataset.v === "1" : false);
      });
      document.body.appendChild(back);
      back.querySelector("button[data-v='1']").focus();
    });
  }

  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  let clockNow = null; // the mailbox's "now" (the session clock from /me), so "today" reads right

  function parse(iso) { return new Date(iso); }
  function hhmm(d) {
    let h = d.getUTCHours();
    const m = String(d.getUTCMinutes()).padStart(2, "0");
    const ampm = h >= 12 ? "PM" : "AM";
    h = h % 12 || 12;
    return `${h}:${m} ${ampm}`;
  }
  function shortDate(iso) {
    const d = parse(iso);
    const now = clockNow || new Date();
    const sameDay = d.getUTCFullYear() === now.getUTCFullYear() && d.getUTCMonth() === now.getUTCMonth() && d.getUTCDate() === now.getUTCDate();
    if (sameDay) return hhmm(d);
    return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
  }
  function longDate(iso) {
    const d = parse(iso);
    const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    return `${days[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}, ${hhmm(d)}`;
  }

  const AVATAR_COLORS = ["#0f6b5c", "#2f6fde", "#b45309", "#7c3aed", "#be185d", "#0e7490", "#4d7c0f", "#9a3412"];
  function avatar(name) {
    const text = (name || "?").trim();
    let sum = 0;
    for (let i = 0; i < text.length; i++) sum = (sum * 31 + text.charCodeAt(i)) % 997;
    const initial = text.replace(/^[^A-Za-z0-9]+/, "").charAt(0).toUpperCase() || "?";
    return `<span class="avatar" style="background:${AVATAR_COLORS[sum % AVATAR_COLORS.length]}" aria-hidden="true">${esc(initial)}</span>`;
  }

  function sizeText(kb) {
    return kb >= 1024 ? (kb / 1024).toFixed(1) + " MB" : kb + " KB";
  }
  function fileBadge(name) {
    const ext = (name.split(".").pop() || "").toLowerCase();
    const kind = ["jpg", "jpeg", "png", "gif"].includes(ext) ? "img" : ext === "zip" ? "zip" : "";
    return `<span class="file ${kind}" aria-hidden="true">${esc(ext.toUpperCase().slice(0, 4))}</span>`;
  }

  const STAR = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 3l2.8 5.8 6.2.9-4.5 4.4 1 6.3L12 17.4 6.5 20.4l1-6.3L3 9.7l6.2-.9z" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"/></svg>';
  const CLIP = '<svg class="clip" viewBox="0 0 24 24" aria-label="Has attachments" role="img"><path d="M16 6l-7.5 7.5a2 2 0 0 0 2.8 2.8L19 8.6a4 4 0 0 0-5.7-5.7L5.6 10.6a6 6 0 0 0 8.5 8.5L20 13" fill="none" stroke="currentColor" stroke-width="1.8"/></svg>';

  let labelsCache = [];
  let meCache = null;

  async function refreshSidebar() {
    try {
      const me = await api("GET", "/me");
      meCache = me;
      if (me.now) clockNow = new Date(me.now);
      labelsCache = me.labels;
      document.getElementById("account-name").textContent = me.name;
      document.getElementById("account-email").textContent = me.email;
      document.getElementById("account-avatar").textContent = me.name.charAt(0);
      renderCounts(me);
      const nav = document.getElementById("label-nav");
      const current = body.dataset.nav;
      nav.innerHTML = me.labels.map((label) => {
        const count = (me.label_unread || {})[label.name];
        return `<a href="${BASE}/label/${encodeURIComponent(label.name)}"${current === "label:" + label.name ? ' aria-current="page"' : ""}>
          <span class="label-dot" style="background:${esc(label.color)}" aria-hidden="true"></span><span class="nav-name">${esc(label.name)}</span><span class="count">${count || ""}</span></a>`;
      }).join("");
      return me;
    } catch (err) {
      if (err.status === 401) reportError(err);
      return null;
    }
  }

  function renderCounts(me) {
    const folders = me.folders || {};
    const show = { inbox: folders.inbox, drafts: folders.drafts, spam: folders.spam };
    Object.keys(show).forEach((key) => {
      const el = document.getElementById("count-" + key);
      if (el) el.textContent = show[key] ? String(show[key]) : "";
    });
  }

  /* Counts only (after an action): the sidebar numbers, from /folders. */
  async function refreshCounts() {
    try {
      const counts = await api("GET", "/folders");
      renderCounts(counts);
      const nav = document.getElementById("label-nav");
      nav.querySelectorAll("a").forEach((a) => {
        const name = a.querySelector(".nav-name").textContent;
        const count = (counts.labels || {})[name];
        a.querySelector(".count").textContent = count ? String(count) : "";
      });
    } catch (err) { /* the sidebar keeps its last numbers */ }
  }

  function setupSearch() {
    const input = document.getElementById("search-input");
    const q = params().get("q");
    if (input && q && body.dataset.page === "search") input.value = q;
  }

  window.Mail = {
    BASE, API, ApiError, api, reportError, errorPanel, loading, toast, toastNext, busy, confirmDialog, esc,
    shortDate, longDate, avatar, sizeText, fileBadge, STAR, CLIP, params, refreshSidebar, refreshCounts,
    labels: () => labelsCache, me: () => meCache, loginUrl, ui: Site.ui,
    page: body.dataset.page,
    main: document.getElementById("app"),
  };
  setupSearch();
  flushToast();
  Mail.ready = refreshSidebar();
})();
