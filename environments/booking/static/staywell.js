/* Staywell: shared helpers for every page (API calls, errors, toasts, dialogs, formatting, header). */
(function () {
  "use strict";
  const body = document.body;
  Site.configure({ name: "Staywell", primaryButton: "btn-brand" });
  const { BASE, API, ApiError, api, reportError, errorPanel, loading, toast, busy, esc, params, loginUrl } = Site;

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
