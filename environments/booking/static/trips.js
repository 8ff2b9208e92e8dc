/* Staywell trips: upcoming, past and cancelled bookings. */
(async function () {
  "use strict";
  const { api, esc, money, photo, plural, shortDate } = SW;
  const app = document.getElementById("app");
  const PAST_PAGE = 5;
  await SW.ready;
  let data = null;
  let tab = ["upcoming", "past", "cancelled"].includes(location.hash.slice(1)) ? location.hash.slice(1) : "upcoming";
  let showAllPast = false;

  async function load() {
    SW.loading(app, "Loading your trips…");
    try {
      data = await api("GET", "/trips");
      render();
    } catch (err) {
      SW.errorPanel(app, err, load);
    }
  }

  function tripCard(trip, index) {
    const url = `${SW.BASE}/trips/${encodeURIComponent(trip.id)}`;
    const hotel = trip.hotel || { name: "Property", city: "", hue: 200 };
    let extra = "";
    if (trip.status === "confirmed") extra = trip.cancellation.free ? `<span class="good small">Free cancellation</span>` : `<span class="small muted">${trip.refundable ? "Cancellation fee applies" : "Non-refundable"}</span>`;
    if (trip.can_review) extra = `<span class="small warn">How was your stay? Write a review</span>`;
    if (trip.status === "cancelled") extra = `<span class="small muted">Refunded ${money(trip.refund_cents || 0)}</span>`;
    return `<article class="trip-card" aria-label="${esc(hotel.name)}, ${esc(trip.check_in_text)}">${photo(hotel.hue, index)}
      <div><h2><a href="${url}">${esc(hotel.name)}</a></h2>
        <div class="muted">${esc(hotel.city)} · ${shortDate(trip.check_in)} – ${shortDate(trip.check_out)} ${trip.check_in.slice(0, 4)} · ${plural(trip.nights, "night")}</div>
        <div class="small">${esc(trip.room_type)} · ${plural(trip.guests, "guest")} · Guest: ${esc(trip.guest_name)}</div>
        <div class="small muted">Confirmation ${esc(trip.reference)}</div></div>
      <div class="right"><span class="status ${esc(trip.status)}">${esc(trip.status)}</span><strong>${money(trip.total_cents)}</strong>${extra}
        <a class="btn" href="${url}" aria-label="View trip to ${esc(hotel.name)}, ${esc(trip.check_in_text)}">View trip</a></div></article>`;
  }

  function render() {
    const counts = { upcoming: data.upcoming.length, past: data.past.length, cancelled: data.cancelled.length };
    const names = { upcoming: "Upcoming", past: "Past", cancelled: "Cancelled" };
    let trips = data[tab];
    let more = "";
    if (tab === "past" && !showAllPast && trips.length > PAST_PAGE) {
      more = `<p style="text-align:center"><button class="btn" type="button" id="more-past">Show ${plural(trips.length - PAST_PAGE, "older stay")}</button></p>`;
      trips = trips.slice(0, PAST_PAGE);
    }
    const empty = { upcoming: "No upcoming trips. Where to next?", past: "No past stays yet.", cancelled: "No cancelled bookings." }[tab];
    app.innerHTML = `<div class="page-head"><h1>Your trips</h1><span class="spacer"></span><a class="btn btn-brand" href="${SW.BASE}/">Book a stay</a></div>
      <div class="tabs" role="tablist">${Object.keys(names).map((key) => `<button type="button" role="tab" data-tab="${key}" aria-selected="${key === tab}">${names[key]} (${counts[key]})</button>`).join("")}</div>
      <div role="tabpanel">${trips.length ? trips.map(tripCard).join("") + more : `<div class="panel empty"><h2>${empty}</h2></div>`}</div>`;
    app.querySelectorAll("[data-tab]").forEach((button) => button.addEventListener("click", () => {
      tab = button.dataset.tab;
      history.replaceState(null, "", "#" + tab);
      render();
    }));
    const moreButton = document.getElementById("more-past");
    if (moreButton) moreButton.addEventListener("click", () => { showAllPast = true; render(); });
  }

  load();
})();
