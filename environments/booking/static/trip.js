/* Staywell trip page: the booking, changing the stay (dates, room, rate, guests), guest details,
 * cancelling under the policy, and a review after the stay. Every change re-reads the booking. */
(async function () {
  "use strict";
  const { api, esc, money, photo, plural, busy, toast, confirmDialog } = SW;
  const app = document.getElementById("app");
  const bookingId = document.body.dataset.booking;
  await SW.ready;
  let trip = null;
  const justBooked = SW.params().get("booked") === "1";

  async function load() {
    SW.loading(app, "Loading your trip…");
    try {
      trip = (await api("GET", `/bookings/${encodeURIComponent(bookingId)}`)).booking;
      render();
    } catch (err) {
      SW.errorPanel(app, err, load);
    }
  }

  function detail(label, value) { return `<div><dt>${label}</dt><dd>${value}</dd></div>`; }

  function render() {
    const h = trip.hotel;
    document.title = `${h.name} · Your trip · Staywell`;
    const banner = justBooked && trip.status === "confirmed"
      ? `<div class="alert success" role="status"><strong>Your booking is confirmed.</strong> Confirmation number ${esc(trip.reference)}. We've emailed the details to ${esc(trip.email)}.</div>` : "";
    app.innerHTML = `<nav class="breadcrumbs" aria-label="Breadcrumb"><a href="${SW.BASE}/trips">Your trips</a> › ${esc(h.name)}</nav>${banner}
      <div class="two-col"><div>
        <section class="panel"><div class="row"><div style="flex:1"><h1><a href="${SW.hotelUrl(h.id, {})}">${esc(h.name)}</a></h1>
          <div class="muted">${esc(h.address)}</div></div><span class="status ${esc(trip.status)}">${esc(trip.status)}</span></div>
          ${photo(h.hue, 1, "trip-photo")}
          <dl class="detail-grid" style="margin-top:14px">
            ${detail("Check-in", `${esc(trip.check_in_text)}<br><span class="small muted">from ${esc(h.check_in_from || "15:00")}</span>`)}
            ${detail("Check-out", esc(trip.check_out_text))}
            ${detail("Length of stay", plural(trip.nights, "night"))}
            ${detail("Guests", `${plural(trip.guests, "adult")}${trip.rooms > 1 ? `, ${trip.rooms} rooms` : ""}`)}
            ${detail("Room", esc(trip.room_type))}
            ${detail("Rate", esc(trip.rate_name))}
            ${detail("Breakfast", trip.breakfast ? "Included" : "Not included")}
            ${detail("Total price", `${money(trip.total_cents)} <span class="small muted">(${money(trip.nightly_cents)} per night)</span>`)}
            ${detail("Paid with", esc(trip.card_label))}
            ${detail("Confirmation number", esc(trip.reference))}
            ${detail("Guest name", esc(trip.guest_name))}
            ${detail("Email", esc(trip.email))}
            ${detail("Phone", esc(trip.phone || "—"))}
            ${detail("Special requests", esc(trip.special_requests || "None"))}
            ${trip.status === "cancelled" ? detail("Refund", `${money(trip.refund_cents || 0)} <span class="small muted">(fee ${money(trip.cancellation_fee_cents || 0)})</span>`) : ""}
          </dl>
          <h3 style="margin-top:16px">Cancellation policy</h3>
          <p class="small">${trip.refundable ? (trip.free_cancel_until ? `Free cancellation until ${SW.dateTime(trip.free_cancel_until)} (UTC). After that, the first night is charged.` : "") : "Non-refundable: cancelling refunds nothing."}</p>
        </section>
        <section class="panel" id="review"></section>
      </div><div class="trip-actions" id="actions"></div></div>`;
    const photoEl = app.querySelector(".trip-photo");
    if (photoEl) photoEl.style.height = "150px";
    renderActions();
    renderReview();
  }

  function renderActions() {
    const target = document.getElementById("actions");
    if (trip.status !== "confirmed") {
      target.innerHTML = `<div class="panel"><h2>${trip.status === "cancelled" ? "This booking is cancelled" : "You've stayed here"}</h2>
        <p class="muted">${trip.status === "cancelled" ? `Cancelled on ${SW.dateTime(trip.cancelled_at)}.` : "We hope you enjoyed your stay."}</p>
        <a class="btn" href="${SW.hotelUrl(trip.hotel.id, {})}">Book ${esc(trip.hotel.name)} again</a></div>`;
      return;
    }
    target.innerHTML = `<section class="panel" id="change-stay" aria-labelledby="change-head"><h2 id="change-head">Change your stay</h2></section>
      <section class="panel" aria-labelledby="guest-head"><h2 id="guest-head">Guest details</h2>
        <form id="guest-form">
          <div class="field"><label for="guest-name">Guest name</label><input id="guest-name" name="guest_name" value="${esc(trip.guest_name)}"></div>
          <div class="field"><label for="guest-email">Email</label><input id="guest-email" name="email" type="email" value="${esc(trip.email)}"></div>
          <div class="field"><label for="guest-phone">Phone number</label><input id="guest-phone" name="phone" type="tel" value="${esc(trip.phone)}"></div>
          <div class="field"><label for="guest-requests">Special requests</label><textarea id="guest-requests" name="special_requests" maxlength="500" placeholder="e.g. quiet room, late arrival">${esc(trip.special_requests)}</textarea></div>
          <button class="btn btn-brand" type="submit">Save guest details</button></form></section>
      <section class="panel" aria-labelledby="cancel-head"><h2 id="cancel-head">Cancel booking</h2>
        <p class="small">${esc(trip.cancellation.summary)}</p>
        <table class="summary-table"><tr><th>Refund if you cancel now</th><td>${money(trip.cancellation.refund_cents)}</td></tr>
          <tr><th>Cancellation fee</th><td>${money(trip.cancellation.fee_cents)}</td></tr></table>
        <button class="btn btn-danger" type="button" id="cancel-booking"${trip.cancellation.can_cancel ? "" : " disabled"}>Cancel booking</button></section>`;
    document.getElementById("guest-form").addEventListener("submit", saveGuest);
    document.getElementById("cancel-booking").addEventListener("click", cancelBooking);
    renderChange();
  }

  async function renderChange() {
    const target = document.getElementById("change-stay");
    if (!trip.can_change_stay) {
      target.insertAdjacentHTML("beforeend", `<p class="muted small">${esc(trip.change_blocked_reason)}</p>`);
      return;
    }
    target.insertAdjacentHTML("beforeend", `<form id="change-form"><div class="field"><span class="label">Dates</span><div id="change-dates"></div></div>
      <div class="field"><label for="change-guests">Guests</label><select id="change-guests">${[1, 2, 3, 4, 5, 6].map((n) => `<option value="${n}"${n === trip.guests ? " selected" : ""}>${plural(n, "adult")}</option>`).join("")}</select></div>
      <div class="field"><label for="change-room">Room type</label><select id="change-room"></select></div>
      <div class="field"><label for="change-rate">Rate</label><select id="change-rate"></select></div>
      <div id="change-quote"></div>
      <button class="btn" type="submit" id="check-change">Check new price</button></form>`);
    const dates = SW.DateRange(document.getElementById("change-dates"), {
      checkIn: trip.check_in, checkOut: trip.check_out, compact: true, onChange: () => loadRooms(),
    });
    const roomSelect = document.getElementById("change-room");
    const rateSelect = document.getElementById("change-rate");
    const guestsSelect = document.getElementById("change-guests");
    let rooms = [];
    function fillRates(keepCode) {
      const room = rooms.find((r) => r.id === roomSelect.value);
      const rates = room ? room.rates : [];
      rateSelect.innerHTML = rates.map((rate) => `<option value="${esc(rate.code)}">${esc(rate.name)} – ${money(rate.price_cents)} per night</option>`).join("");
      if (rates.some((rate) => rate.code === keepCode)) rateSelect.value = keepCode;
      document.getElementById("change-quote").innerHTML = "";
    }
    async function loadRooms() {
      const wanted = { room: roomSelect.value || trip.room_id, rate: rateSelect.value || trip.rate_plan };
      roomSelect.disabled = rateSelect.disabled = true;
      try {
        const stay = { check_in: dates.checkIn, check_out: dates.checkOut, guests: Number(guestsSelect.value), rooms: trip.rooms };
        const hotel = await api("GET", `/hotels/${encodeURIComponent(trip.hotel.id)}?` + SW.stayQuery(stay).toString());
        rooms = hotel.rooms.filter((r) => (r.fits && r.available) || r.id === trip.room_id);
        roomSelect.innerHTML = rooms.map((r) => `<option value="${esc(r.id)}"${!r.available || !r.fits ? " disabled" : ""}>${esc(r.type)}${!r.available ? " (sold out)" : !r.fits ? " (too small)" : ""}</option>`).join("");
        const keep = rooms.find((r) => r.id === wanted.room && r.available && r.fits);
        roomSelect.value = keep ? keep.id : (rooms.find((r) => r.available && r.fits) || {}).id || "";
        fillRates(wanted.rate);
      } catch (err) {
        SW.reportError(err, loadRooms);
      } finally {
        roomSelect.disabled = rateSelect.disabled = false;
      }
    }
    roomSelect.addEventListener("change", () => fillRates(rateSelect.value));
    rateSelect.addEventListener("change", () => { document.getElementById("change-quote").innerHTML = ""; });
    guestsSelect.addEventListener("change", loadRooms);
    function change() {
      const body = {};
      if (dates.checkIn !== trip.check_in) body.check_in = dates.checkIn;
      if (dates.checkOut !== trip.check_out) body.check_out = dates.checkOut;
      if (Number(guestsSelect.value) !== trip.guests) body.guests = Number(guestsSelect.value);
      if (roomSelect.value && roomSelect.value !== trip.room_id) body.room_id = roomSelect.value;
      if (rateSelect.value && rateSelect.value !== trip.rate_plan) body.rate_plan = rateSelect.value;
      return body;
    }
    document.getElementById("change-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = change();
      const out = document.getElementById("change-quote");
      if (!dates.checkIn || !dates.checkOut) { toast("Choose both dates.", "error"); return; }
      if (!Object.keys(body).length) { toast("Nothing to change yet: pick new dates, a room or a rate.", "error"); return; }
      await busy(document.getElementById("check-change"), async () => {
        try {
          const priced = await api("POST", `/bookings/${encodeURIComponent(bookingId)}/change-quote`, body);
          const diff = priced.difference_cents;
          out.innerHTML = `<div class="alert info" style="display:block"><table class="summary-table">
              <tr><th>New total</th><td>${money(priced.new_total_cents)}</td></tr>
              <tr><th>${diff >= 0 ? "To pay now" : "Refund"}</th><td>${money(Math.abs(diff))}</td></tr></table>
              <div class="small">${diff >= 0 ? "Charged to" : "Refunded to"} your ${esc(priced.card_label)}.</div>
              <button class="btn btn-primary btn-block" type="button" id="confirm-change" style="margin-top:10px">Confirm changes</button></div>`;
          document.getElementById("confirm-change").addEventListener("click", (e) => applyChange(e.currentTarget, body));
        } catch (err) {
          SW.reportError(err);
        }
      });
    });
    loadRooms();
  }

  async function applyChange(button, body) {
    await busy(button, async () => {
      try {
        const result = await api("PATCH", `/bookings/${encodeURIComponent(bookingId)}`, body);
        toast(result.message, "success");
        await load();
      } catch (err) {
        SW.reportError(err, () => applyChange(button, body));
      }
    });
  }

  async function saveGuest(event) {
    event.preventDefault();
    const form = event.target;
    const body = {};
    for (const name of ["guest_name", "email", "phone", "special_requests"]) {
      if (form[name].value.trim() !== (trip[name] || "")) body[name] = form[name].value;
    }
    if (!Object.keys(body).length) { toast("Nothing has changed.", "error"); return; }
    await busy(form.querySelector("button[type=submit]"), async () => {
      try {
        const result = await api("PATCH", `/bookings/${encodeURIComponent(bookingId)}`, body);
        toast(result.message, "success");
        await load();
      } catch (err) {
        SW.reportError(err);
      }
    });
  }

  async function cancelBooking(event) {
    const terms = trip.cancellation;
    const ok = await confirmDialog({
      title: "Cancel this booking?",
      html: `<p>${esc(trip.hotel.name)}, ${esc(trip.check_in_text)} – ${esc(trip.check_out_text)}.</p><p class="small">${esc(terms.summary)}</p>
        <table class="summary-table"><tr><th>Refund</th><td>${money(terms.refund_cents)}</td></tr><tr><th>Cancellation fee</th><td>${money(terms.fee_cents)}</td></tr></table>`,
      confirm: "Yes, cancel booking", cancel: "Keep booking", danger: true,
    });
    if (!ok) return;
    await busy(event.target, async () => {
      try {
        const result = await api("POST", `/bookings/${encodeURIComponent(bookingId)}/cancel`);
        toast(result.message, "success");
        await load();
      } catch (err) {
        SW.reportError(err);
      }
    });
  }

  function renderReview() {
    const target = document.getElementById("review");
    if (trip.reviewed) { target.innerHTML = `<h2>Your review</h2><p class="muted">Thanks for reviewing this stay. You can read it in your <a href="${SW.BASE}/account#reviews">account</a>.</p>`; return; }
    if (!trip.can_review) { target.remove(); return; }
    const words = { 10: "Exceptional", 9: "Superb", 8: "Very good", 7: "Good", 6: "Pleasant", 5: "Okay", 4: "Disappointing", 3: "Poor", 2: "Very poor", 1: "Terrible" };
    target.innerHTML = `<h2>Review your stay</h2><form id="review-form">
      <div class="grid-2"><div class="field"><label for="review-score">Score</label><select id="review-score"><option value="">Choose a score</option>${[10, 9, 8, 7, 6, 5, 4, 3, 2, 1].map((n) => `<option value="${n}">${n} – ${words[n]}</option>`).join("")}</select></div>
      <div class="field"><label for="review-type">Travelled as</label><select id="review-type">${["Couple", "Solo", "Family", "Business", "Friends"].map((t) => `<option>${t}</option>`).join("")}</select></div></div>
      <div class="field"><label for="review-title">Title</label><input id="review-title" maxlength="80" placeholder="Sum up your stay"></div>
      <div class="field"><label for="review-body">Your review</label><textarea id="review-body" placeholder="What did you like? What could be better?"></textarea></div>
      <button class="btn btn-brand" type="submit">Publish review</button></form>`;
    document.getElementById("review-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const score = Number(document.getElementById("review-score").value);
      if (!score) { toast("Choose a score from 1 to 10.", "error"); return; }
      await busy(event.target.querySelector("button"), async () => {
        try {
          const result = await api("POST", "/reviews", {
            booking_id: trip.id, rating: score, title: document.getElementById("review-title").value,
            body: document.getElementById("review-body").value, traveler_type: document.getElementById("review-type").value,
          });
          toast(result.message, "success");
          await load();
        } catch (err) {
          SW.reportError(err);
        }
      });
    });
  }

  load();
})();
