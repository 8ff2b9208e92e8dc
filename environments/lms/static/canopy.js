/* Canopy: shared helpers for every page (dates, dialogs, the header and the course menu). */
(function () {
  "use strict";
  Site.configure({ name: "Canopy", primaryButton: "btn-primary" });
  const { esc } = Site;
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December"];
  const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

  function parse(iso) { return new Date(String(iso).endsWith("Z") ? iso : iso + "Z"); }
  function two(n) { return String(n).padStart(2, "0"); }
  /* "Thu 19 Mar, 23:59" */
  function when(iso) {
    const d = parse(iso);
    return `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()].slice(0, 3)}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
  }
  function day(iso) {
    const d = parse(iso);
    return `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()].slice(0, 3)} ${d.getUTCFullYear()}`;
  }
  function time(iso) { const d = parse(iso); return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`; }
  function plural(n, one, many) { return `${n} ${n === 1 ? one : (many || one + "s")}`; }
  function initials(name) { return name.split(" ").filter(Boolean).map((p) => p[0]).slice(0, 2).join("").toUpperCase(); }

  const STATUS = {
    graded: "Graded", submitted: "Submitted", late: "Submitted late", missing: "Missing", overdue: "Overdue",
    open: "Not submitted", in_progress: "In progress", timed_out: "Time ran out",
  };
  function status(value) { return `<span class="status ${esc(value)}">${esc(STATUS[value] || value)}</span>`; }

  /* A modal dialog; resolves true when the confirm button is pressed. */
  function confirmDialog({ title, html, confirm, cancel, danger }) {
    return new Promise((resolve) => {
      const dialog = document.createElement("dialog");
      dialog.className = "modal";
      dialog.setAttribute("aria-labelledby", "modal-title");
      dialog.innerHTML = `<h2 id="modal-title">${esc(title)}</h2><div class="modal-body">${html || ""}</div>
        <div class="actions"><button class="btn" type="button" data-no>${esc(cancel || "Cancel")}</button>
        <button class="btn ${danger ? "btn-danger" : "btn-primary"}" type="button" data-yes>${esc(confirm || "Confirm")}</button></div>`;
      function done(answer) { dialog.close(); dialog.remove(); resolve(answer); }
      dialog.querySelector("[data-no]").addEventListener("click", () => done(false));
      dialog.querySelector("[data-yes]").addEventListener("click", () => done(true));
      dialog.addEventListener("cancel", (event) => { event.preventDefault(); done(false); });
      document.body.appendChild(dialog);
      dialog.showModal();
    });
  }

  /* The course menu beside a course's pages. */
  function courseNav(course, current) {
    const nav = document.getElementById("course-nav");
    const links = [["", "Home"], ["announcements", "Announcements"], ["assignments", "Assignments"],
      ["quizzes", "Quizzes"], ["discussions", "Discussions"], ["grades", "Grades"]];
    nav.innerHTML = `<div class="course-nav-title" style="border-color:${esc(course.color)}">${esc(course.code)}</div>` +
      links.map(([key, label]) => `<a href="${Site.BASE}/courses/${esc(course.id)}${key ? "/" + key : ""}"${key === current ? ' aria-current="page"' : ""}>${label}</a>`).join("");
    nav.hidden = false;
  }

  function crumbs(parts) {
    document.getElementById("crumbs").innerHTML = parts.map(([label, href]) => href
      ? `<a href="${Site.BASE}${href}">${esc(label)}</a>` : `<span>${esc(label)}</span>`).join('<span class="sep">›</span>');
    const last = parts[parts.length - 1];
    if (last) document.title = `${last[0]} · Canopy`;
  }

  const ready = Site.api("GET", "/me").then((me) => {
    document.getElementById("who-name").textContent = me.name;
    document.getElementById("who-initials").textContent = initials(me.name);
    const badge = document.getElementById("unread-count");
    if (me.unread_messages) { badge.textContent = me.unread_messages; badge.hidden = false; }
    return me;
  }).catch(() => null);

  window.LMS = Object.assign({}, Site, { when, day, time, parse, plural, initials, status, confirmDialog, courseNav, crumbs, ready, MONTHS, two });
})();
