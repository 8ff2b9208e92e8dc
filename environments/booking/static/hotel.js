/* Staywell hotel page: photos, save to a list, dates and guests, rooms with every rate, reviews. */
(async function () {
  "use strict";
  const { api, esc, money, photo, plural, stars, score, busy, toast } = SW;
  const app = document.getElementById("app");
  const hotelId = document.body.dataset.hotel;
  await SW.ready;
  const query = SW.params();
  const stay = { check_in: query.get("check_in"), check_out: query.get("check_out"),
    guests: Number(query.get("guests") || 2), rooms: Number(query.get("rooms") || 1) };
  let data = null;
  let lists = [];

  async function load() {
    SW.loading(app, "Loading the property…");
    try {
      const [detail, saved] = await Promise.all([
        api("GET", `/hotels/${encodeURIComponent(hotelId)}?` + SW.stayQuery(stay).toString()),
        api("GET", "/lists"),
      ]);
      data = detail;
      lists = saved.lists;
      render();
    } catch (err) {
      SW.errorPanel(app, err, load);
    }
  }

  function render() {
    const h = data.hotel;
    document.title = `${h.name} · Staywell`;
    const searchUrl = `${SW.BASE}/search?destination=${encodeURIComponent(h.destination_id)}&` + SW.stayQuery(stay).toString();
    app.innerHTML = `<nav class="breadcrumbs" aria-label="Breadcrumb"><a href="${SW.BASE}/">Home</a> › <a href="${searchUrl}">${esc(h.city)}</a> › ${esc(h.name)}</nav>
      <div class="hotel-head"><div class="title"><div>${stars(h.stars)} <span class="small muted">${esc(h.property_type)}</span></div>
        <h1>${esc(h.name)}</h1><div class="muted">${esc(h.address)} · <strong>${h.distance_km.toFixed(1)} km from centre</strong></div></div>
        ${score(h, true)}
        <div class="save-wrap" id="save-wrap"></div></div>
      <div class="gallery">${[0, 1, 2, 3, 4].map((i) => photo((h.hue + i * 23) % 360, i)).join("")}</div>
      <div class="staybar" id="staybar"><div data-dates></div><div data-guests></div><button class="sb-submit" type="button" id="update-stay">Update</button></div>
      <div class="two-col"><div>
        <section class="panel" aria-labelledby="rooms-head"><h2 id="rooms-head">Rooms and rates</h2><div id="rooms"></div></section>
        <section class="panel"><h2>About this property</h2><p>${esc(h.description)}</p>
          <h3>Popular amenities</h3><ul class="amenity-list">${h.amenities.map((a) => `<li>${esc(a)}</li>`).join("")}</ul></section>
        <section class="panel" aria-labelledby="reviews-head"><h2 id="reviews-head">Guest reviews</h2>${reviews()}</section>
      </div><aside>
        <div class="panel"><h3>Good to know</h3><table class="summary-table">
          <tr><th>Check-in</th><td>from ${esc(h.check_in_from)}</td></tr><tr><th>Check-out</th><td>until ${esc(h.check_out_until)}</td></tr>
          <tr><th>Neighbourhood</th><td>${esc(h.neighborhood)}</td></tr><tr><th>City centre</th><td>${h.distance_km.toFixed(1)} km</td></tr></table>
          ${h.offers_free_cancellation ? `<p class="good small">✓ Free cancellation on selected rates</p>` : `<p class="warn small">Only non-refundable rates are offered.</p>`}</div>
      </aside></div>`;
    const bar = document.getElementById("staybar");
    const dates = SW.DateRange(bar.querySelector("[data-dates]"), { checkIn: stay.check_in, checkOut: stay.check_out });
    const guests = SW.Guests(bar.querySelector("[data-guests]"), { guests: stay.guests, rooms: stay.rooms });
    document.getElementById("update-stay").addEventListener("click", () => {
      if (dates.checkIn && !dates.checkOut) { toast("Choose a check-out date too.", "error"); return; }
      const next = SW.stayQuery({ check_in: dates.checkIn, check_out: dates.checkOut, guests: guests.guests, rooms: guests.rooms });
      location.href = location.pathname + "?" + next.toString();
    });
    renderRooms();
    renderSave();
  }

  function renderRooms() {
    const target = document.getElementById("rooms");
    const dated = Boolean(data.stay.check_in);
    const intro = dated
      ? `<p class="muted small">Prices for ${plural(data.stay.nights, "night")} (${SW.shortDate(data.stay.check_in)} – ${SW.shortDate(data.stay.check_out)}), ${plural(stay.guests, "adult")}${stay.rooms > 1 ? `, ${stay.rooms} rooms` : ""}. Taxes and fees included.</p>`
      : `<div class="alert info">Select your dates to see the total price of your stay. Prices below are per room per night.</div>`;
    target.innerHTML = intro + data.rooms.map((room) => {
      const head = `<header><h3>${esc(room.type)}</h3><span class="small muted">${esc(room.beds)} · ${room.size_m2} m² · sleeps ${room.capacity}</span>
        <span class="chips">${room.features.map((f) => `<span class="chip">${esc(f)}</span>`).join("")}</span></header>`;
      if (!room.fits) return `<div class="room-block">${head}<div class="sold-out">Sleeps ${room.capacity}: too small for ${plural(Math.ceil(stay.guests / stay.rooms), "guest")} per room.</div></div>`;
      if (!room.available) return `<div class="room-block">${head}<div class="sold-out">Sold out for your dates.</div></div>`;
      return `<div class="room-block" aria-label="${esc(room.type)}">${head}${room.rates.map((rate) => `
        <div class="rate-row"><div><div class="rate-name">${esc(rate.name)}</div>
          <div class="perks">${rate.breakfast ? `<span class="good">☕ Breakfast included</span>` : `<span class="muted">Breakfast not included</span>`}</div>
          <div class="perks ${rate.refundable ? "good" : "muted"}">${esc(rate.policy || (rate.refundable ? "Free cancellation before arrival" : "Non-refundable"))}</div></div>
          <div class="price">${dated ? `<strong>${money(rate.total_cents)}</strong><div class="small muted">${money(rate.price_cents)} per night</div>`
            : `<strong>${money(rate.price_cents)}</strong><div class="small muted">per night</div>`}</div>
          <div><button class="btn btn-primary btn-block" type="button" data-room="${esc(room.id)}" data-rate="${esc(rate.code)}"
            aria-label="Reserve ${esc(room.type)}: ${esc(rate.name)}">Reserve</button></div></div>`).join("")}</div>`;
    }).join("");
    target.querySelectorAll("[data-room]").forEach((button) => button.addEventListener("click", () => {
      if (!data.stay.check_in) {
        toast("Choose your check-in and check-out dates first.", "error");
        document.querySelector("#staybar .sb-trigger").click();
        return;
      }
      const next = SW.stayQuery(stay);
      next.set("hotel", hotelId);
      next.set("room", button.dataset.room);
      next.set("rate", button.dataset.rate);
      location.href = SW.BASE + "/book?" + next.toString();
    }));
  }

  function reviews() {
    if (!data.reviews.length) return `<p class="muted">No reviews yet.</p>`;
    return data.reviews.map((r) => `<article class="review"><div class="row"><span class="score"><span class="num">${r.rating}</span></span>
      <strong>${esc(r.title)}</strong><span class="spacer"></span><span class="small muted">${esc(r.author)} · ${esc(r.traveler_type)} · ${SW.dateTime(r.created_at).slice(0, -7)}</span></div>
      <p>${esc(r.body)}</p></article>`).join("");
  }

  function itemFor(list) { return list.items.find((item) => item.hotel.id === hotelId); }

  function renderSave() {
    const wrap = document.getElementById("save-wrap");
    const savedAny = lists.some(itemFor);
    wrap.innerHTML = `<button class="btn save-btn" type="button" aria-haspopup="dialog" aria-expanded="false" aria-pressed="${savedAny}">
        <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><path d="M12 21s-7-4.5-9.5-9A5.5 5.5 0 0 1 12 6a5.5 5.5 0 0 1 9.5 6C19 16.5 12 21 12 21z"/></svg>
        ${savedAny ? "Saved" : "Save"}</button>
      <div class="popover save-popover" role="dialog" aria-label="Save to a list" hidden>
        <h3>Save to a list</h3>
        ${lists.map((list) => `<label class="opt"><input type="checkbox" data-list="${esc(list.id)}"${itemFor(list) ? " checked" : ""}> ${esc(list.name)} <span class="small muted">(${list.count})</span></label>`).join("") || `<p class="small muted">You have no lists yet.</p>`}
        <form id="new-list" class="field" style="margin-top:10px"><label for="new-list-name">New list</label>
          <div class="row"><input id="new-list-name" type="text" maxlength="40" placeholder="e.g. Summer 2026" style="flex:1">
          <button class="btn btn-brand" type="submit">Create</button></div></form></div>`;
    const button = wrap.querySelector(".save-btn");
    const pop = wrap.querySelector(".popover");
    button.addEventListener("click", (event) => {
      event.stopPropagation();
      pop.hidden = !pop.hidden;
      button.setAttribute("aria-expanded", String(!pop.hidden));
    });
    pop.addEventListener("click", (event) => event.stopPropagation());
    pop.querySelectorAll("[data-list]").forEach((box) => box.addEventListener("change", () => toggle(box)));
    pop.querySelector("#new-list").addEventListener("submit", createList);
  }

  async function refreshLists(keepOpen) {
    lists = (await api("GET", "/lists")).lists;
    renderSave();
    if (keepOpen) document.querySelector("#save-wrap .save-btn").click();
  }

  async function toggle(box) {
    const list = lists.find((l) => l.id === box.dataset.list);
    box.disabled = true;
    try {
      let result;
      if (box.checked) {
        result = await api("POST", `/lists/${encodeURIComponent(list.id)}/items`, { hotel_id: hotelId });
      } else {
        const item = itemFor(list);
        result = await api("DELETE", `/lists/${encodeURIComponent(list.id)}/items/${encodeURIComponent(item.id)}`);
      }
      toast(result.message, "success");
      await refreshLists(true);
    } catch (err) {
      box.checked = !box.checked;
      box.disabled = false;
      SW.reportError(err, () => toggle(box));
    }
  }

  async function createList(event) {
    event.preventDefault();
    const input = document.getElementById("new-list-name");
    const name = input.value.trim();
    if (!name) { toast("Give your list a name.", "error"); return; }
    await busy(event.target.querySelector("button"), async () => {
      try {
        const created = await api("POST", "/lists", { name });
        const saved = await api("POST", `/lists/${encodeURIComponent(created.list.id)}/items`, { hotel_id: hotelId });
        toast(saved.message, "success");
        await refreshLists(true);
      } catch (err) {
        SW.reportError(err);
      }
    });
  }

  document.addEventListener("click", () => {
    const pop = document.querySelector("#save-wrap .popover");
    if (pop && !pop.hidden) {
      pop.hidden = true;
      document.querySelector("#save-wrap .save-btn").setAttribute("aria-expanded", "false");
    }
  });
  load();
})();
