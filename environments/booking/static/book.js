/* Staywell booking page: guest details, payment with a saved (or new) card, summary, confirm. */
(async function () {
  "use strict";
  const { api, esc, money, photo, plural, stars, busy, toast } = SW;
  const app = document.getElementById("app");
  await SW.ready;
  const query = SW.params();
  const selection = {
    hotel_id: query.get("hotel"), room_id: query.get("room"), rate_plan: query.get("rate"),
    check_in: query.get("check_in"), check_out: query.get("check_out"),
    guests: Number(query.get("guests") || 2), rooms: Number(query.get("rooms") || 1),
  };
  let quote = null;
  let chosenCard = null;

  async function load() {
    SW.loading(app, "Preparing your booking…");
    try {
      const [priced, profile] = await Promise.all([api("POST", "/quote", selection), api("GET", "/account")]);
      quote = priced;
      render(profile.account);
    } catch (err) {
      SW.errorPanel(app, err, load);
    }
  }

  function render(account) {
    const q = quote;
    const back = SW.hotelUrl(selection.hotel_id, selection);
    document.title = `Book ${q.hotel.name} · Staywell`;
    app.innerHTML = `<nav class="breadcrumbs" aria-label="Breadcrumb"><a href="${back}">‹ Back to ${esc(q.hotel.name)}</a></nav>
      <h1>Complete your booking</h1><div id="notice"></div>
      <div class="two-col"><form id="booking-form" novalidate>
        <section class="panel"><h2>Who's staying?</h2>
          <div class="grid-2"><div class="field"><label for="guest-name">Guest's full name</label>
            <input id="guest-name" name="guest_name" autocomplete="name" value="${esc(account.full_name)}" required></div>
          <div class="field"><label for="guest-email">Email for the confirmation</label>
            <input id="guest-email" name="email" type="email" autocomplete="email" value="${esc(account.email)}" required></div></div>
          <div class="field"><label for="guest-phone">Phone number</label><input id="guest-phone" name="phone" type="tel" autocomplete="tel" value="${esc(account.phone)}"></div>
          <div class="field"><label for="special-requests">Special requests (optional)</label>
            <textarea id="special-requests" name="special_requests" maxlength="500" placeholder="e.g. quiet room, late arrival, extra pillows"></textarea>
            <span class="hint">Requests can't be guaranteed, but the property will do its best.</span></div>
        </section>
        <section class="panel"><h2>How do you want to pay?</h2><div id="cards" role="radiogroup" aria-label="Payment card"></div>
          <button class="btn-link" type="button" id="show-new-card">+ Add a new card</button><div id="new-card"></div></section>
      </form>
      <aside class="panel summary-card" aria-labelledby="summary-head">${photo(q.hotel.hue, 2)}
        <div>${stars(q.hotel.stars)}</div><h2 id="summary-head">${esc(q.hotel.name)}</h2>
        <div class="small muted">${esc(q.hotel.address)}</div>
        <table class="summary-table">
          <tr><th>Check-in</th><td>${esc(q.check_in_text)}</td></tr>
          <tr><th>Check-out</th><td>${esc(q.check_out_text)}</td></tr>
          <tr><th>Length of stay</th><td>${plural(q.nights, "night")}</td></tr>
          <tr><th>Guests</th><td>${plural(q.guests, "adult")}${q.rooms > 1 ? `, ${q.rooms} rooms` : ""}</td></tr>
          <tr><th>Room</th><td>${esc(q.room.type)}</td></tr>
          <tr><th>Rate</th><td>${esc(q.rate.name)}</td></tr>
          <tr><th>Per night</th><td>${money(q.nightly_cents)}${q.rooms > 1 ? " per room" : ""}</td></tr>
          <tr class="total"><th>Total</th><td id="total">${money(q.total_cents)}</td></tr></table>
        <p class="small ${q.rate.refundable ? "good" : "warn"}">${esc(q.policy)}</p>
        <button class="btn btn-primary btn-block btn-lg" type="submit" form="booking-form" id="complete">Complete booking</button>
        <p class="small muted">You'll be charged ${money(q.total_cents)} when you complete the booking.</p>
      </aside></div>`;
    renderCards(q.cards);
    document.getElementById("show-new-card").addEventListener("click", newCardForm);
    document.getElementById("booking-form").addEventListener("submit", submit);
  }

  function renderCards(cards) {
    const usable = cards.filter((c) => !c.expired);
    if (!chosenCard || !usable.some((c) => c.id === chosenCard)) chosenCard = (usable.find((c) => c.is_default) || usable[0] || {}).id;
    document.getElementById("cards").innerHTML = cards.map((c) => `<label class="card-option${c.expired ? " disabled" : ""}">
        <input type="radio" name="card" value="${esc(c.id)}"${c.id === chosenCard ? " checked" : ""}${c.expired ? " disabled" : ""}>
        <span class="card-art" aria-hidden="true">${esc(SW.brandCode(c.brand))}</span>
        <span><span class="brand">${esc(c.label)}</span><br><span class="small muted">${c.expired ? "Expired" : "Expires"} ${esc(c.expiry)}${c.is_default ? " · Default card" : ""}</span></span>
      </label>`).join("") || `<p class="muted">No saved cards yet.</p>`;
    document.querySelectorAll('input[name="card"]').forEach((radio) => radio.addEventListener("change", () => { chosenCard = radio.value; }));
  }

  function newCardForm() {
    const year = Number(SW.today.slice(0, 4));
    const target = document.getElementById("new-card");
    target.innerHTML = `<div class="panel" style="margin-top:10px;box-shadow:none"><h3>New card</h3>
      <div class="field"><label for="card-number">Card number</label><input id="card-number" inputmode="numeric" autocomplete="cc-number" placeholder="1234 5678 9012 3456"></div>
      <div class="grid-2"><div class="field"><label for="card-month">Expiry month</label><select id="card-month">${Array.from({ length: 12 }, (_, i) => `<option value="${i + 1}">${String(i + 1).padStart(2, "0")}</option>`).join("")}</select></div>
      <div class="field"><label for="card-year">Expiry year</label><select id="card-year">${Array.from({ length: 10 }, (_, i) => `<option>${year + i}</option>`).join("")}</select></div></div>
      <div class="field"><label for="card-holder">Name on card</label><input id="card-holder" autocomplete="cc-name"></div>
      <label class="opt"><input type="checkbox" id="card-default"> Make this my default card</label>
      <div class="row" style="margin-top:10px"><button class="btn btn-brand" type="button" id="save-card">Save card</button>
      <button class="btn" type="button" id="cancel-card">Cancel</button></div></div>`;
    document.getElementById("cancel-card").addEventListener("click", () => { target.innerHTML = ""; });
    document.getElementById("save-card").addEventListener("click", (event) => busy(event.currentTarget, async () => {
      try {
        const result = await api("POST", "/cards", {
          number: document.getElementById("card-number").value, exp_month: Number(document.getElementById("card-month").value),
          exp_year: Number(document.getElementById("card-year").value), holder: document.getElementById("card-holder").value,
          make_default: document.getElementById("card-default").checked,
        });
        chosenCard = result.card.id;
        renderCards(result.cards);
        target.innerHTML = "";
        toast(result.message, "success");
      } catch (err) {
        SW.reportError(err);
      }
    }));
  }

  async function submit(event) {
    event.preventDefault();
    const form = event.target;
    const notice = document.getElementById("notice");
    notice.innerHTML = "";
    if (!chosenCard) { toast("Choose a card to pay with.", "error"); return; }
    const payload = {
      ...selection, guest_name: form.guest_name.value, email: form.email.value, phone: form.phone.value,
      special_requests: form.special_requests.value, card_id: chosenCard, expected_total_cents: quote.total_cents,
    };
    await busy(document.getElementById("complete"), async () => {
      try {
        const result = await api("POST", "/bookings", payload);
        location.href = `${SW.BASE}/trips/${encodeURIComponent(result.booking.id)}?booked=1`;
      } catch (err) {
        if (err.status === 409 && /price/i.test(err.detail || "")) {
          const fresh = await api("POST", "/quote", selection);
          quote.total_cents = fresh.total_cents;
          document.getElementById("total").textContent = money(fresh.total_cents);
          notice.innerHTML = `<div class="alert warning" role="alert">${esc(err.detail)}</div>`;
          return;
        }
        notice.innerHTML = `<div class="alert error" role="alert">${esc(err.detail || "We couldn't complete your booking.")} Nothing has been charged.</div>`;
        SW.reportError(err);
      }
    });
  }

  load();
})();
