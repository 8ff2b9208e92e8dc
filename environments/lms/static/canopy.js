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
  const SECTIONS = [["", "Home", "modules"], ["announcements", "Announcements", "announcements"],
    ["assignments", "Assignments", "assignments"], ["quizzes", "Quizzes", "quizzes"],
    ["discussions", "Discussions", "discussions"], ["grades", "Grades", "grades"]];
  function courseNav(course, current) {
    if (Site.ui("tabs") === "tablist") return courseTabs(course, current);
    const nav = document.getElementById("course-nav");
    const links = SECTIONS;
    nav.innerHTML = `<div class="course-nav-title" style="border-color:${esc(course.color)}">${esc(course.code)}</div>` +
      links.map(([key, label]) => `<a href="${Site.BASE}/courses/${esc(course.id)}${key ? "/" + key : ""}"${key === current ? ' aria-current="page"' : ""}>${label}</a>`).join("");
    nav.hidden = false;
  }

  /* UI profile tabs=tablist: the course's sections are a tab list above the content; a tab shows
   * its section in the page (the address follows) instead of opening another page. Arrow keys, Home
   * and End move between tabs; Enter or Space opens the focused one (manual activation). */
  function courseTabs(course, current) {
    document.getElementById("course-nav").hidden = true;
    const app = document.getElementById("app");
    let list = document.getElementById("course-tabs");
    if (!list) {
      list = document.createElement("div");
      list.id = "course-tabs";
      list.className = "course-tabs";
      list.setAttribute("role", "tablist");
      app.insertAdjacentElement("beforebegin", list);
    }
    // Re-drawn when the section has loaded: the tab that had the focus keeps it.
    const focused = list.contains(document.activeElement) ? document.activeElement.dataset.page : null;
    list.setAttribute("aria-label", `${course.code} sections`);
    list.style.borderColor = course.color;
    const base = `${Site.BASE}/courses/${course.id}`;
    list.innerHTML = `<span class="course-tabs-title" aria-hidden="true" style="border-color:${esc(course.color)}">${esc(course.code)}</span>` +
      SECTIONS.map(([key, label, page]) => `<button type="button" role="tab" id="tab-${page}" data-section="${key}" data-page="${page}"
        aria-controls="app" aria-selected="${key === current}" tabindex="${key === current ? 0 : -1}">${label}</button>`).join("");
    app.setAttribute("role", "tabpanel");
    app.setAttribute("tabindex", "0");
    const selected = list.querySelector('[aria-selected="true"]');
    if (selected) app.setAttribute("aria-labelledby", selected.id);
    else app.setAttribute("aria-label", course.code);
    const tabs = Array.from(list.querySelectorAll('[role="tab"]'));
    function open(tab) {
      tabs.forEach((t) => { t.setAttribute("aria-selected", String(t === tab)); t.tabIndex = t === tab ? 0 : -1; });
      app.removeAttribute("aria-label");
      app.setAttribute("aria-labelledby", tab.id);
      document.body.dataset.course = course.id;
      document.body.dataset.page = tab.dataset.page;
      history.pushState({ tab: tab.dataset.page }, "", base + (tab.dataset.section ? "/" + tab.dataset.section : ""));
      document.dispatchEvent(new CustomEvent("canopy:section", { detail: tab.dataset.page }));
    }
    if (focused) {
      const again = list.querySelector(`[data-page="${focused}"]`);
      if (again) { tabs.forEach((t) => { t.tabIndex = t === again ? 0 : -1; }); again.focus(); }
    }
    tabs.forEach((tab, at) => {
      tab.addEventListener("click", () => open(tab));
      tab.addEventListener("keydown", (event) => {
        const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
        if (to !== undefined) {
          event.preventDefault();
          const next = tabs[(to + tabs.length) % tabs.length];
          tabs.forEach((t) => { t.tabIndex = t === next ? 0 : -1; });
          next.focus();
        }
      });
    });
  }
  // Back and forward through tabs opened in the page: show that address as a page again.
  window.addEventListener("popstate", () => { if (Site.ui("tabs") === "tablist") location.reload(); });

  /* UI profile autocomplete=type-ahead: a select (kept, hidden, holding the value) is offered as a
   * text field with suggestions: typing filters its options, a click or Enter on one picks it.
   * Roles: the field is a combobox (aria-autocomplete=list) named by the select's label, the
   * suggestions a listbox of options; Arrow keys move through them, Escape closes them. */
  let typeAheads = 0;
  function typeAhead(select) {
    const uid = `ta-${++typeAheads}`;
    const wrap = document.createElement("span");
    wrap.className = "type-ahead";
    const input = document.createElement("input");
    input.type = "text";
    input.id = uid;
    input.autocomplete = "off";
    input.placeholder = "Type a name…";
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", `${uid}-list`);
    const list = document.createElement("ul");
    list.id = `${uid}-list`;
    list.className = "type-ahead-list";
    list.setAttribute("role", "listbox");
    list.hidden = true;
    const note = document.createElement("div");
    note.className = "type-ahead-note small muted";
    note.setAttribute("role", "status");
    note.hidden = true;
    wrap.append(input, list, note);
    const label = select.labels && select.labels[0];
    if (label) { label.htmlFor = uid; list.setAttribute("aria-label", label.textContent.trim()); }
    select.hidden = true;
    select.style.display = "none";
    select.insertAdjacentElement("afterend", wrap);
    let active = -1;
    const choices = () => Array.from(select.options).filter((o) => o.value);
    function shown() { return Array.from(list.children); }
    function mark(at) {
      const items = shown();
      active = items.length ? (at + items.length) % items.length : -1;
      items.forEach((item, n) => item.setAttribute("aria-selected", String(n === active)));
      if (active >= 0) { input.setAttribute("aria-activedescendant", items[active].id); items[active].scrollIntoView({ block: "nearest" }); }
      else input.removeAttribute("aria-activedescendant");
    }
    function close() { list.hidden = true; note.hidden = true; input.setAttribute("aria-expanded", "false"); input.removeAttribute("aria-activedescendant"); active = -1; }
    function open() {
      if (input.disabled) return;
      const words = input.value.trim().toLowerCase();
      const found = choices().filter((o) => !words || o.textContent.toLowerCase().includes(words));
      list.innerHTML = "";
      note.textContent = found.length ? "" : `No one matches “${input.value.trim()}”`;
      note.hidden = Boolean(found.length);
      found.forEach((option, n) => {
        const item = document.createElement("li");
        item.id = `${uid}-o${n}`;
        item.setAttribute("role", "option");
        item.setAttribute("aria-selected", "false");
        item.dataset.value = option.value;
        item.textContent = option.textContent.trim();
        item.addEventListener("mousedown", (event) => event.preventDefault());  // keep the focus in the field
        item.addEventListener("click", () => pick(option));
        list.appendChild(item);
      });
      list.hidden = !found.length;
      input.setAttribute("aria-expanded", String(Boolean(found.length)));
      active = -1;
    }
    function pick(option) {
      input.value = option.textContent.trim();
      if (select.value !== option.value) {
        select.value = option.value;
        select.dispatchEvent(new Event("change", { bubbles: true }));
      }
      close();
    }
    function sync() {
      input.disabled = select.disabled;
      const chosen = select.value ? select.options[select.selectedIndex] : null;
      input.value = chosen ? chosen.textContent.trim() : "";
      input.placeholder = select.disabled ? (select.options[0] ? select.options[0].textContent.trim() : "") : "Type a name…";
    }
    input.addEventListener("input", () => {
      if (select.value) { select.value = ""; select.dispatchEvent(new Event("change", { bubbles: true })); }
      open();
    });
    input.addEventListener("click", () => { if (list.hidden) open(); });
    input.addEventListener("focus", () => { if (list.hidden) open(); });
    input.addEventListener("blur", close);
    input.addEventListener("keydown", (event) => {
      const items = shown();
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        if (list.hidden) open();
        mark(active + (event.key === "ArrowDown" ? 1 : -1));
      } else if (event.key === "Enter" && !list.hidden) {
        event.preventDefault();  // never send the form from the field
        const item = items[active] || (items.length === 1 ? items[0] : null);
        if (item) pick(choices().find((o) => o.value === item.dataset.value));
      } else if (event.key === "Escape" && !list.hidden) {
        event.preventDefault();
        event.stopPropagation();  // close the suggestions, not the dialog
        close();
      }
    });
    new MutationObserver(sync).observe(select, { childList: true, attributes: true, attributeFilter: ["disabled"] });
    sync();
    return input;
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

  window.LMS = Object.assign({}, Site, { when, day, time, parse, plural, initials, status, confirmDialog, courseNav, typeAhead, crumbs, ready, MONTHS, two });
})();
