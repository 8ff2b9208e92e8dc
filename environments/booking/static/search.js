/* Staywell results: the search bar, filters, sort and hotel cards. Filters live in the URL. */
(async function () {
  "use strict";
  const { api, esc, money, photo, plural, stars, score } = SW;
  const app = document.getElementById("app");
  await SW.ready;
  const query = SW.params();
  const RATINGS = [["", "Any score"], ["7", "Good: 7+"], ["8", "Very good: 8+"], ["8.5", "Excellent: 8.5+"], ["9", "Superb: 9+"]];
  const DISTANCES = [["", "Any distance"], ["1", "Less than 1 km"], ["2", "Less than 2 km"], ["3", "Less than 3 km"], ["5", "Less than 5 km"]];
  const SORTS = [["recommended", "Our top picks"], ["price", "Price (lowest first)"], ["rating", "Guest rating (highest first)"],
    ["distance", "Distance from centre"]];
  const FILTER_KEYS = ["sort", "min_price", "max_price", "min_rating", "max_distance", "free_cancellation", "stars", "amenity"];

  app.innerHTML = `<div id="search"></div><div class="sidebar-layout">
    <aside class="panel filters" id="filters" aria-label="Filters"></aside>
    <section><div class="results-head"><h1 id="results-title">Search results</h1>
      <div class="sort"><label for="sort">Sort by</label><select id="sort">${SORTS.map(([v, t]) => `<option value="${v}">${t}</option>`).join("")}</select></div></div>
      <div id="results" aria-live="polite"></div></section></div>`;
  let bar = null;
  let amenities = [];
  let token = 0;

  function stay() {
    return { check_in: query.get("check_in"), check_out: query.get("check_out"),
      guests: Number(query.get("guests") || 2), rooms: Number(query.get("rooms") || 1) };
  }

  function renderFilters() {
    const chosenStars = query.getAll("stars");
    const chosenAmenities = query.getAll("amenity");
    const radio = (name, options, current) => options.map(([value, text]) =>
      `<label class="opt"><input type="radio" name="${name}" value="${value}"${(current || "") === value ? " checked" : ""}> ${text}</label>`).join("");
    document.getElementById("filters").innerHTML = `
      <h3>Your budget per night</h3>
      <form class="price-range" id="price-form">
        <div class="field"><label class="small" for="min-price">Min price</label><input id="min-price" type="number" min="0" step="10" placeholder="$ / night" value="${esc(query.get("min_price") || "")}"></div>
        <div class="field"><label class="small" for="max-price">Max price</label><input id="max-price" type="number" min="0" step="10" placeholder="$ / night" value="${esc(query.get("max_price") || "")}"></div>
        <button class="btn" type="submit" style="grid-column:1/-1">Apply budget</button></form>
      <h3>Cancellation</h3>
      <label class="opt"><input type="checkbox" id="free-cancellation"${query.get("free_cancellation") === "true" ? " checked" : ""}> Free cancellation</label>
      <h3 id="rating-head">Guest rating</h3><div role="radiogroup" aria-labelledby="rating-head">${radio("min_rating", RATINGS, query.get("min_rating"))}</div>
      <h3 id="distance-head">Distance from centre</h3><div role="radiogroup" aria-labelledby="distance-head">${radio("max_distance", DISTANCES, query.get("max_distance"))}</div>
      <h3>Star rating</h3>${[5, 4, 3, 2].map((n) => `<label class="opt"><input type="checkbox" name="stars" value="${n}"${chosenStars.includes(String(n)) ? " checked" : ""}> ${n} stars</label>`).join("")}
      <h3>Amenities</h3>${amenities.map((a) => `<label class="opt"><input type="checkbox" name="amenity" value="${esc(a)}"${chosenAmenities.includes(a) ? " checked" : ""}> ${esc(a)}</label>`).join("")}
      <p><button class="btn-link" type="button" id="clear-filters">Clear all filters</button></p>`;
    document.getElementById("sort").value = query.get("sort") || "recommended";
  }

  function setParam(key, value) {
    if (value === null || value === "" || value === false) query.delete(key); else query.set(key, value);
  }
  function syncUrl() { history.replaceState(null, "", location.pathname + "?" + query.toString()); }
  function refresh() { syncUrl(); load(); }

  document.addEventListener("change", (event) => {
    const el = event.target;
    if (el.id === "sort") setParam("sort", el.value === "recommended" ? "" : el.value);
    else if (el.id === "free-cancellation") setParam("free_cancellation", el.checked ? "true" : "");
    else if (el.name === "min_rating" || el.name === "max_distance") setParam(el.name, el.value);
    else if (el.name === "stars" || el.name === "amenity") {
      query.delete(el.name);
      document.querySelectorAll(`input[name="${el.name}"]:checked`).forEach((box) => query.append(el.name, box.value));
    } else return;
    refresh();
  });
  document.addEventListener("submit", (event) => {
    if (event.target.id !== "price-form") return;
    event.preventDefault();
    setParam("min_price", document.getElementById("min-price").value);
    setParam("max_price", document.getElementById("max-price").value);
    refresh();
  });
  document.addEventListener("click", (event) => {
    if (event.target.id !== "clear-filters") return;
    FILTER_KEYS.forEach((key) => { if (key !== "sort") query.delete(key); });
    renderFilters();
    refresh();
  });

  function card(hotel, index, data) {
    const url = SW.hotelUrl(hotel.id, stay());
    const nights = data.stay.nights;
    const perks = hotel.amenities.filter((a) => a !== "Non-smoking rooms" && a !== "24-hour front desk").slice(0, 4);
    return `<article class="hotel-card" aria-label="${esc(hotel.name)}">
      ${photo(hotel.hue, index)}
      <div><h2><a href="${url}">${esc(hotel.name)}</a></h2>
        <div>${stars(hotel.stars)} <span class="small muted">${esc(hotel.property_type)}</span></div>
        <div class="where">${esc(hotel.neighborhood)}, ${esc(hotel.city)} · <span class="distance">${hotel.distance_km.toFixed(1)} km from centre</span></div>
        <div class="chips">${perks.map((a) => `<span class="chip">${esc(a)}</span>`).join("")}</div>
        ${hotel.free_cancellation ? `<p class="good small">✓ Free cancellation available</p>` : `<p class="small muted">Non-refundable rates only</p>`}
      </div>
      <div class="price-col">${score(hotel, true)}
        <div><div class="small muted">from</div><div class="price-big">${money(hotel.price_from_cents, true)}</div>
        <div class="small muted">per night</div>
        ${nights ? `<div class="small">≈ ${money(hotel.estimate_cents, true)} for ${plural(nights, "night")}${data.stay.rooms > 1 ? `, ${data.stay.rooms} rooms` : ""}</div>` : ""}
        </div><a class="btn btn-primary" href="${url}" aria-label="See availability at ${esc(hotel.name)}">See availability</a></div>
    </article>`;
  }

  async function load() {
    const target = document.getElementById("results");
    const mine = ++token;
    SW.loading(target, "Finding the best places to stay…");
    const request = new URLSearchParams(query);
    try {
      const data = await api("GET", "/hotels?" + request.toString());
      if (mine !== token) return;
      if (!bar) {
        amenities = data.filter_amenities;
        bar = SW.searchBar(document.getElementById("search"), {
          compact: true, destinationId: data.destination.id, destinationName: data.destination.name,
          checkIn: data.stay.check_in, checkOut: data.stay.check_out, guests: data.stay.guests, rooms: data.stay.rooms,
          keep: (next) => FILTER_KEYS.forEach((key) => query.getAll(key).forEach((v) => next.append(key, v))),
        });
        renderFilters();
      }
      document.title = `${data.destination.name} hotels · Staywell`;
      const when = data.stay.check_in ? ` · ${SW.shortDate(data.stay.check_in)} – ${SW.shortDate(data.stay.check_out)}` : "";
      document.getElementById("results-title").textContent = `${data.destination.name}: ${plural(data.count, "property", "properties")} found${when}`;
      const soldOut = data.sold_out ? `<p class="small muted">${plural(data.sold_out, "property is", "properties are")} sold out for your dates.</p>` : "";
      const noDates = data.stay.check_in ? "" : `<div class="alert info">Add your dates to see availability and prices for your stay.</div>`;
      target.innerHTML = noDates + (data.hotels.length ? data.hotels.map((h, i) => card(h, i, data)).join("") + soldOut
        : `<div class="panel empty"><h2>No properties match your filters</h2><p>Try removing a filter or widening your budget.</p></div>${soldOut}`);
    } catch (err) {
      if (mine !== token) return;
      if (!bar) bar = SW.searchBar(document.getElementById("search"), { compact: true });
      SW.errorPanel(target, err, load);
    }
  }
  load();
})();
