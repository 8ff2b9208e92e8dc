/* Staywell home: the search hero, the next trip and popular destinations. */
(async function () {
  "use strict";
  const { api, esc, money, photo, plural } = SW;
  const app = document.getElementById("app");
  await SW.ready;
  app.innerHTML = `<section class="hero"><h1>Find your next stay</h1>
      <p>Hotels, apartments and guesthouses in Europe's favourite cities, with free cancellation on most rooms.</p>
      <div id="search"></div></section>
    <div id="next-trip"></div>
    <div class="section-title"><h2>Popular destinations</h2><span class="muted small">Prices per night, taxes included</span></div>
    <div id="destinations"><div class="loading" role="status"><div class="spinner"></div><span>Loading destinations…</span></div></div>`;
  SW.searchBar(document.getElementById("search"), { guests: 2, rooms: 1 });

  async function load() {
    const target = document.getElementById("destinations");
    try {
      const data = await api("GET", "/home");
      target.innerHTML = `<div class="dest-grid">${data.destinations.map((d, i) => `
        <a class="dest-card" href="${SW.BASE}/search?destination=${encodeURIComponent(d.id)}">
          ${photo(d.hue, i)}
          <div class="body"><strong>${esc(d.name)}</strong> <span class="muted small">${esc(d.country)}</span>
          <div class="small muted">${esc(d.tagline)}</div>
          <div class="small">${plural(d.hotel_count, "property", "properties")} · from <strong>${money(d.price_from_cents, true)}</strong></div></div>
        </a>`).join("")}</div>`;
      if (data.next_trip) {
        const trip = data.next_trip;
        document.getElementById("next-trip").innerHTML = `<div class="panel next-trip">
          <div><div class="small muted">Your next trip</div><strong>${esc(trip.hotel_name)}</strong>, ${esc(trip.city)}
          <div class="small">${esc(trip.check_in_text)} – ${esc(trip.check_out_text)}</div></div>
          <span class="spacer"></span><a class="btn" href="${SW.BASE}/trips/${encodeURIComponent(trip.id)}">View trip</a></div>`;
      }
    } catch (err) {
      SW.errorPanel(target, err, load);
    }
  }
  load();
})();
