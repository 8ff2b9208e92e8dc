/* Staywell: the search widgets shared by several pages: destination autocomplete, the check-in /
 * check-out calendar, the guests and rooms picker, and the search bar that combines them. */
(function () {
  "use strict";
  const { api, esc, longDate, shortDate, addDays, nightsBetween, parseDate, isoDate, plural, MONTHS } = SW;
  let openPopover = null;

  function closeOpen(except) {
    if (openPopover && openPopover !== except) openPopover.close();
  }
  document.addEventListener("click", (event) => {
    if (openPopover && !openPopover.root.contains(event.target)) openPopover.close();
  });
  document.addEventListener("keydown", (event) => { if (event.key === "Escape" && openPopover) openPopover.close(); });

  /* Destination field with suggestions from /destinations. */
  function Destination(root, { label, text, destinationId, onPick }) {
    const self = { root, destinationId: destinationId || null, text: text || "" };
    const uid = "dest-" + Math.random().toString(36).slice(2, 7);
    root.classList.add("sb-cell");
    root.innerHTML = `<label for="${uid}">${esc(label || "Where to?")}</label>
      <input id="${uid}" type="text" autocomplete="off" role="combobox" aria-autocomplete="list" aria-expanded="false"
        aria-controls="${uid}-list" placeholder="City or hotel name" value="${esc(self.text)}">
      <ul class="popover suggestions" id="${uid}-list" role="listbox" aria-label="Suggestions" hidden></ul>`;
    const input = root.querySelector("input");
    const list = root.querySelector("ul");
    let items = [];
    let active = -1;
    let timer = null;
    let token = 0;
    self.close = () => { list.hidden = true; input.setAttribute("aria-expanded", "false"); if (openPopover === self) openPopover = null; };
    function render() {
      if (!items.length) { self.close(); return; }
      list.innerHTML = items.map((item, i) => `<li role="option" id="${uid}-o${i}" aria-selected="${i === active}" data-i="${i}">
        <span class="icon" aria-hidden="true">${item.kind === "city" ? "⌖" : "⌂"}</span>
        <span><strong>${esc(item.label)}</strong><br><span class="sub">${esc(item.sublabel)}${item.kind === "city" ? ` · ${plural(item.count, "property", "properties")}` : ""}</span></span></li>`).join("");
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      closeOpen(self);
      openPopover = self;
    }
    function pick(item) {
      self.close();
      if (item.kind === "city") {
        self.destinationId = item.id;
        self.text = item.label;
        input.value = item.label;
      }
      if (onPick) onPick(item);
    }
    async function lookup() {
      const q = input.value.trim();
      const mine = ++token;
      if (!q) { items = []; render(); return; }
      try {
        const data = await api("GET", "/destinations?q=" + encodeURIComponent(q));
        if (mine !== token) return;
        items = data.suggestions;
        active = items.length ? 0 : -1;
        render();
      } catch (err) { SW.reportError(err); }
    }
    input.addEventListener("input", () => {
      self.destinationId = null;
      clearTimeout(timer);
      timer = setTimeout(lookup, 150);
    });
    input.addEventListener("focus", () => { if (input.value && !self.destinationId) lookup(); });
    input.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" && items.length) { active = (active + 1) % items.length; render(); event.preventDefault(); }
      else if (event.key === "ArrowUp" && items.length) { active = (active - 1 + items.length) % items.length; render(); event.preventDefault(); }
      else if (event.key === "Enter" && !list.hidden && items[active]) { pick(items[active]); event.preventDefault(); }
    });
    list.addEventListener("click", (event) => {
      const li = event.target.closest("li[data-i]");
      if (li) pick(items[Number(li.dataset.i)]);
    });
    self.input = input;
    /* Resolve typed text to a city when nothing was picked (e.g. "Lisbon" typed in full). */
    self.resolve = async () => {
      if (self.destinationId || !input.value.trim()) return self.destinationId;
      const data = await api("GET", "/destinations?q=" + encodeURIComponent(input.value.trim()));
      const city = data.suggestions.find((s) => s.kind === "city" && s.label.toLowerCase() === input.value.trim().toLowerCase());
      if (city) { self.destinationId = city.id; input.value = city.label; }
      return self.destinationId;
    };
    return self;
  }

  /* UI profile date=native: check-in and check-out as two labelled native date inputs (typed, or
   * picked with the browser's own calendar) instead of the buttons and two-month calendar. The same
   * rules hold: no past check-in, check-out 1 to 30 nights later; a wrong date says why at once. */
  function NativeDateRange(root, { checkIn, checkOut, today, onChange, compact }) {
    const self = { root, checkIn: checkIn || null, checkOut: checkOut || null, close() {} };
    const firstDay = () => today || SW.today || isoDate(new Date());  // the session's today, once known
    const uid = "dates-" + Math.random().toString(36).slice(2, 7);
    root.classList.add(compact ? "date-field" : "sb-cell");
    root.innerHTML = `<div class="sb-dates native-dates">
        <div class="native-date"><label for="${uid}-in">Check-in</label><input id="${uid}-in" type="date" min="${firstDay()}"></div>
        <div class="native-date"><label for="${uid}-out">Check-out</label><input id="${uid}-out" type="date"></div></div>`;
    const [start, end] = root.querySelectorAll("input");
    function bounds() {
      const first = firstDay();
      start.min = first;
      const from = start.value && start.value >= first ? start.value : first;
      end.min = addDays(from, 1);
      end.max = start.value ? addDays(from, 30) : "";
    }
    function read() {
      const before = [self.checkIn, self.checkOut].join();
      const a = start.value || null;
      const b = end.value || null;
      self.checkIn = a && a >= firstDay() ? a : null;
      self.checkOut = b && self.checkIn && b > self.checkIn && b <= addDays(self.checkIn, 30) ? b : null;
      start.setCustomValidity(a && !self.checkIn ? "Check-in can't be in the past." : "");
      end.setCustomValidity(b && !self.checkOut
        ? (self.checkIn ? "Check-out must be 1 to 30 nights after check-in." : "Choose a check-in date first.") : "");
      bounds();
      return before !== [self.checkIn, self.checkOut].join();
    }
    [start, end].forEach((input) => input.addEventListener("change", () => {
      const changed = read();
      if (!input.checkValidity()) input.reportValidity();
      if (changed && self.checkIn && self.checkOut && onChange) onChange(self.checkIn, self.checkOut);
    }));
    self.set = (a, b) => { start.value = a || ""; end.value = b || ""; read(); };
    self.focus = () => start.focus();
    self.set(self.checkIn, self.checkOut);
    return self;
  }

  /* Check-in and check-out buttons with a two-month calendar. */
  function DateRange(root, options) {
    if (Site.ui("date") === "native") return NativeDateRange(root, options);
    const { checkIn, checkOut, today, onChange, compact } = options;
    const self = { root, checkIn: checkIn || null, checkOut: checkOut || null };
    const first = today || SW.today || isoDate(new Date());
    let selecting = "in";
    let view = (self.checkIn || first).slice(0, 7) + "-01";
    root.classList.add(compact ? "date-field" : "sb-cell");
    root.innerHTML = `<div class="sb-dates">
        <button type="button" class="sb-trigger" data-which="in"></button>
        <button type="button" class="sb-trigger" data-which="out"></button></div>
      <div class="popover calendar" role="dialog" aria-label="Choose your dates" hidden></div>`;
    const pop = root.querySelector(".popover");
    const triggers = root.querySelectorAll(".sb-trigger");
    function label() {
      triggers.forEach((button) => {
        const which = button.dataset.which;
        const value = which === "in" ? self.checkIn : self.checkOut;
        const name = which === "in" ? "Check-in" : "Check-out";
        button.innerHTML = `<small>${name}</small>${value ? esc(shortDate(value)) : `<span class="placeholder">Add date</span>`}`;
        button.setAttribute("aria-label", `${name} date, ${value ? longDate(value) : "not set"}`);
      });
    }
    function monthGrid(monthIso) {
      const start = parseDate(monthIso);
      const year = start.getUTCFullYear();
      const month = start.getUTCMonth();
      const lead = (start.getUTCDay() + 6) % 7; // weeks start on Monday
      const days = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
      let cells = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"].map((d) => `<span class="dow" aria-hidden="true">${d}</span>`).join("");
      cells += "<span></span>".repeat(lead);
      for (let day = 1; day <= days; day++) {
        const iso = isoDate(new Date(Date.UTC(year, month, day)));
        const classes = ["cal-day"];
        if (iso === first) classes.push("today");
        if (iso === self.checkIn) classes.push("start");
        if (iso === self.checkOut) classes.push("end");
        if (self.checkIn && self.checkOut && iso > self.checkIn && iso < self.checkOut) classes.push("in-range");
        const disabled = iso < first || (selecting === "out" && self.checkIn && iso > addDays(self.checkIn, 30));
        const pressed = iso === self.checkIn || iso === self.checkOut;
        cells += `<button type="button" class="${classes.join(" ")}" data-date="${iso}" aria-label="${longDate(iso)}" aria-pressed="${pressed}"${disabled ? " disabled" : ""}>${day}</button>`;
      }
      return `<div class="cal-month"><h3>${MONTHS[month]} ${year}</h3><div class="cal-grid">${cells}</div></div>`;
    }
    function render() {
      const next = isoDate(new Date(Date.UTC(parseDate(view).getUTCFullYear(), parseDate(view).getUTCMonth() + 1, 1)));
      const atStart = view <= first.slice(0, 7) + "-01";
      const nights = self.checkIn && self.checkOut ? nightsBetween(self.checkIn, self.checkOut) : 0;
      const status = !self.checkIn ? "Choose your check-in date" : !self.checkOut ? "Now choose your check-out date"
        : `${shortDate(self.checkIn)} – ${shortDate(self.checkOut)} · ${plural(nights, "night")}`;
      pop.innerHTML = `<div class="cal-head">
          <button type="button" class="btn" data-nav="-1" aria-label="Previous month"${atStart ? " disabled" : ""}>‹</button>
          <strong>${selecting === "in" ? "Check-in" : "Check-out"}</strong>
          <button type="button" class="btn" data-nav="1" aria-label="Next month">›</button></div>
        <div class="cal-months">${monthGrid(view)}${monthGrid(next)}</div>
        <div class="cal-foot"><span class="muted" aria-live="polite">${esc(status)}</span><span class="spacer"></span>
          <button type="button" class="btn-link" data-clear>Clear dates</button>
          <button type="button" class="btn btn-brand" data-done>Done</button></div>`;
    }
    self.close = () => { pop.hidden = true; if (openPopover === self) openPopover = null; };
    function open(which) {
      selecting = which === "out" && self.checkIn ? "out" : "in";
      const anchor = selecting === "out" ? self.checkIn : self.checkIn || first;
      view = (anchor || first).slice(0, 7) + "-01";
      closeOpen(self);
      openPopover = self;
      render();
      pop.hidden = false;
    }
    triggers.forEach((button) => button.addEventListener("click", (event) => {
      event.stopPropagation();
      if (!pop.hidden && selecting === button.dataset.which) { self.close(); return; }
      open(button.dataset.which);
    }));
    pop.addEventListener("click", (event) => {
      event.stopPropagation();
      const nav = event.target.closest("[data-nav]");
      if (nav) {
        const d = parseDate(view);
        view = isoDate(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + Number(nav.dataset.nav), 1)));
        render();
        return;
      }
      if (event.target.closest("[data-clear]")) { self.checkIn = self.checkOut = null; selecting = "in"; label(); render(); return; }
      if (event.target.closest("[data-done]")) { self.close(); return; }
      const day = event.target.closest("[data-date]");
      if (!day || day.disabled) return;
      const iso = day.dataset.date;
      if (selecting === "in" || !self.checkIn || iso <= self.checkIn) {
        self.checkIn = iso;
        if (self.checkOut && self.checkOut <= iso) self.checkOut = null;
        selecting = "out";
        label();
        render();
      } else {
        self.checkOut = iso;
        label();
        self.close();
        if (onChange) onChange(self.checkIn, self.checkOut);
      }
    });
    label();
    self.set = (a, b) => { self.checkIn = a; self.checkOut = b; label(); };
    self.focus = () => triggers[0].click();
    return self;
  }

  /* Guests and rooms. */
  function Guests(root, { guests, rooms, compact, onChange }) {
    const self = { root, guests: guests || 2, rooms: rooms || 1 };
    root.classList.add(compact ? "date-field" : "sb-cell");
    root.innerHTML = `<button type="button" class="sb-trigger"></button>
      <div class="popover" role="dialog" aria-label="Guests and rooms" hidden></div>`;
    const trigger = root.querySelector(".sb-trigger");
    const pop = root.querySelector(".popover");
    function label() {
      const text = `${plural(self.guests, "adult")} · ${plural(self.rooms, "room")}`;
      trigger.innerHTML = `<small>Guests</small>${esc(text)}`;
      trigger.setAttribute("aria-label", `Guests and rooms, ${plural(self.guests, "adult")}, ${plural(self.rooms, "room")}`);
    }
    function row(name, key, min, max) {
      const value = self[key];
      return `<div class="stepper-row"><span class="label" id="lbl-${key}">${name}</span><div class="stepper">
        <button type="button" data-step="-1" data-key="${key}" aria-label="Fewer ${name.toLowerCase()}"${value <= min ? " disabled" : ""}>−</button>
        <output aria-labelledby="lbl-${key}">${value}</output>
        <button type="button" data-step="1" data-key="${key}" aria-label="More ${name.toLowerCase()}"${value >= max ? " disabled" : ""}>+</button></div></div>`;
    }
    function render() {
      pop.innerHTML = row("Adults", "guests", Math.max(1, self.rooms), 16) + row("Rooms", "rooms", 1, Math.min(4, self.guests)) +
        `<div class="cal-foot"><span class="small muted">Children count as guests.</span><span class="spacer"></span><button type="button" class="btn btn-brand" data-done>Done</button></div>`;
    }
    self.close = () => { pop.hidden = true; if (openPopover === self) openPopover = null; };
    trigger.addEventListener("click", (event) => {
      event.stopPropagation();
      if (!pop.hidden) { self.close(); return; }
      closeOpen(self);
      openPopover = self;
      render();
      pop.hidden = false;
    });
    pop.addEventListener("click", (event) => {
      event.stopPropagation();
      if (event.target.closest("[data-done]")) { self.close(); return; }
      const step = event.target.closest("[data-step]");
      if (!step || step.disabled) return;
      self[step.dataset.key] += Number(step.dataset.step);
      label();
      render();
      if (onChange) onChange(self.guests, self.rooms);
    });
    label();
    return self;
  }

  /* The full search bar: destination, dates, guests and the Search button. */
  function searchBar(target, options) {
    const opts = options || {};
    target.innerHTML = `<form class="searchbar${opts.compact ? " compact" : ""}" role="search">
      <div data-dest></div><div data-dates></div><div data-guests></div>
      <button class="sb-submit" type="submit">Search</button></form>`;
    const form = target.querySelector("form");
    const stay = {};
    const dest = Destination(form.querySelector("[data-dest]"), {
      text: opts.destinationName, destinationId: opts.destinationId,
      onPick: (item) => {
        if (item.kind === "hotel") location.href = hotelUrl(item.id, stay);
        // Next step: the dates (after this click has finished, so it doesn't close the calendar).
        else if (!dates.checkIn) setTimeout(() => dates.focus(), 0);
      },
    });
    const dates = DateRange(form.querySelector("[data-dates]"), { checkIn: opts.checkIn, checkOut: opts.checkOut });
    const guests = Guests(form.querySelector("[data-guests]"), { guests: opts.guests, rooms: opts.rooms });
    Object.defineProperties(stay, {
      check_in: { get: () => dates.checkIn }, check_out: { get: () => dates.checkOut },
      guests: { get: () => guests.guests }, rooms: { get: () => guests.rooms },
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      let id = null;
      try { id = await dest.resolve(); } catch (err) { SW.reportError(err); return; }
      if (!id) {
        SW.toast("Choose a destination from the suggestions.", "error");
        dest.input.focus();
        return;
      }
      if (dates.checkIn && !dates.checkOut) { SW.toast("Choose a check-out date too.", "error"); return; }
      const query = new URLSearchParams({ destination: id, guests: guests.guests, rooms: guests.rooms });
      if (dates.checkIn) { query.set("check_in", dates.checkIn); query.set("check_out", dates.checkOut); }
      if (opts.keep) opts.keep(query);
      location.href = SW.BASE + "/search?" + query.toString();
    });
    return { dest, dates, guests, stay };
  }

  function stayQuery(stay) {
    const query = new URLSearchParams();
    if (stay.check_in && stay.check_out) { query.set("check_in", stay.check_in); query.set("check_out", stay.check_out); }
    if (stay.guests) query.set("guests", stay.guests);
    if (stay.rooms) query.set("rooms", stay.rooms);
    return query;
  }
  function hotelUrl(id, stay) {
    const query = stayQuery(stay || {}).toString();
    return SW.BASE + "/hotel/" + encodeURIComponent(id) + (query ? "?" + query : "");
  }

  Object.assign(SW, { Destination, DateRange, Guests, searchBar, stayQuery, hotelUrl });
})();
