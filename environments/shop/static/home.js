/* Home page: hero, departments, featured products, deals and new arrivals. */
(function () {
  "use strict";
  const { api, esc, productCard, errorPanel, loading, main, BASE } = window.Shop;

  const TILE_HUES = { electronics: 210, "home-kitchen": 25, clothing: 340, shoes: 15, "sports-outdoors": 140, beauty: 300, office: 45, "toys-games": 265 };

  function tile(category) {
    const hue = TILE_HUES[category.slug] || 200;
    return `<a class="category-tile" href="${BASE}/c/${esc(category.slug)}">
      <svg viewBox="0 0 56 56" aria-hidden="true"><rect width="56" height="56" fill="hsl(${hue},60%,62%)"/><circle cx="28" cy="28" r="14" fill="#fff" opacity=".85"/></svg>
      <div><strong>${esc(category.name)}</strong><span>${esc(category.description)}</span></div></a>`;
  }

  function section(title, link, cards) {
    if (!cards.length) return "";
    return `<section><div class="section-head"><h2>${esc(title)}</h2>${link}</div>
      <div class="grid">${cards.map(productCard).join("")}</div></section><div style="height:26px"></div>`;
  }

  async function load() {
    loading(main, "Loading the store…");
    try {
      const data = await api("GET", "/home");
      main.innerHTML = `
        <section class="hero">
          <div><h1>Spring refresh, delivered</h1>
            <p>Free standard shipping on orders over $35 and free returns within 30 days. Find something new for home, trail and desk.</p>
            <a class="btn btn-primary btn-lg" href="${BASE}/c/sports-outdoors">Shop outdoor gear</a></div>
          <svg class="hero-art" viewBox="0 0 260 150" aria-hidden="true">
            <rect x="20" y="40" width="90" height="90" rx="14" fill="#f2a516"/><rect x="125" y="20" width="110" height="110" rx="14" fill="#5b8ddb"/>
            <circle cx="180" cy="75" r="30" fill="#fff" opacity=".85"/><rect x="40" y="60" width="50" height="50" rx="8" fill="#fff" opacity=".8"/></svg>
        </section>
        <h2>Shop by department</h2>
        <div class="category-tiles">${data.categories.map(tile).join("")}</div>
        ${section("Featured products", `<a href="${BASE}/search">See everything</a>`, data.featured)}
        ${section("Today's deals", "", data.deals)}
        ${section("New arrivals", `<a href="${BASE}/search?sort=newest">More new arrivals</a>`, data.new_arrivals)}`;
    } catch (err) {
      errorPanel(main, err, load);
    }
  }
  load();
})();
