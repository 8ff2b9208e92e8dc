/* Category and search pages: filters, sorting and paging over GET /products. */
(function () {
  "use strict";
  const { api, esc, productCard, errorPanel, loading, main, BASE, params, busy, reportError } = window.Shop;
  const category = document.body.dataset.category || null;
  const isSearch = document.body.dataset.page === "search";

  function currentQuery() {
    const p = params();
    if (category) p.set("category", category);
    if (Site.ui("list") === "infinite") p.delete("page");  // the endless list always starts at the top
    return p;
  }

  function layout() {
    main.innerHTML = `
      <nav class="breadcrumbs" aria-label="Breadcrumb" id="crumbs"></nav>
      <div class="sidebar-layout">
        <aside class="panel filters" aria-label="Filters" id="filters"><div class="skeleton" style="height:280px"></div></aside>
        <section aria-live="polite">
          <div class="results-bar">
            <div><h1 id="heading" style="margin:0"></h1><div class="muted small" id="count"></div></div>
            <div class="row"><label for="sort" class="small">Sort by</label><select id="sort" class="input"></select></div>
          </div>
          <div id="results"></div>
        </section>
      </div>`;
    document.getElementById("sort").addEventListener("change", (e) => update({ sort: e.target.value, page: null }));
  }

  function update(changes) {
    const p = params();
    for (const [key, value] of Object.entries(changes)) {
      p.delete(key);
      if (Array.isArray(value)) value.forEach((v) => p.append(key, v));
      else if (value !== null && value !== "" && value !== false) p.set(key, value);
    }
    history.pushState(null, "", location.pathname + (p.toString() ? "?" + p : ""));
    load();
  }

  function renderFilters(data) {
    const p = params();
    const chosen = p.getAll("brand");
    const brands = data.facets.brands.map((b) => `<label class="check"><input type="checkbox" name="brand" value="${esc(b)}"${chosen.includes(b) ? " checked" : ""}> ${esc(b)}</label>`).join("");
    const rating = p.get("min_rating") || "";
    document.getElementById("filters").innerHTML = `
      <h3>Brand</h3>${brands || '<p class="muted small">No brands</p>'}
      <h3>Customer rating</h3>
      <label class="visually-hidden" for="min-rating">Minimum rating</label>
      <select id="min-rating" class="input" style="width:100%">
        <option value="">Any rating</option>
        ${[4.5, 4, 3.5, 3].map((r) => `<option value="${r}"${String(r) === rating ? " selected" : ""}>${r} stars &amp; up</option>`).join("")}
      </select>
      <h3>Price</h3>
      <form class="price-range" id="price-form">
        <label class="visually-hidden" for="min-price">Minimum price in dollars</label>
        <input class="input" id="min-price" inputmode="decimal" placeholder="$ Min" value="${esc(p.get("min_price") || "")}">
        <span>–</span>
        <label class="visually-hidden" for="max-price">Maximum price in dollars</label>
        <input class="input" id="max-price" inputmode="decimal" placeholder="$ Max" value="${esc(p.get("max_price") || "")}">
        <button class="btn" type="submit">Go</button>
      </form>
      <h3>Availability</h3>
      <label class="check"><input type="checkbox" id="in-stock"${p.get("in_stock") === "true" ? " checked" : ""}> In stock only</label>
      <p style="margin-top:14px"><button type="button" class="btn-link" id="clear-filters">Clear all filters</button></p>`;
    document.querySelectorAll('input[name="brand"]').forEach((box) => box.addEventListener("change", () => {
      update({ brand: [...document.querySelectorAll('input[name="brand"]:checked')].map((b) => b.value), page: null });
    }));
    document.getElementById("min-rating").addEventListener("change", (e) => update({ min_rating: e.target.value, page: null }));
    document.getElementById("in-stock").addEventListener("change", (e) => update({ in_stock: e.target.checked ? "true" : null, page: null }));
    document.getElementById("price-form").addEventListener("submit", (e) => {
      e.preventDefault();
      update({ min_price: document.getElementById("min-price").value.replace("$", "").trim(),
               max_price: document.getElementById("max-price").value.replace("$", "").trim(), page: null });
    });
    document.getElementById("clear-filters").addEventListener("click", () => {
      const keep = new URLSearchParams();
      const q = params().get("q");
      if (q) keep.set("q", q);
      history.pushState(null, "", location.pathname + (keep.toString() ? "?" + keep : ""));
      load();
    });
  }

  function renderResults(data) {
    const q = params().get("q");
    const heading = document.getElementById("heading");
    if (data.category && !q) heading.textContent = data.category.name;
    else if (q) heading.textContent = `Results for “${q}”`;
    else heading.textContent = "All products";
    document.title = heading.textContent + " · Brightcart";
    const crumbs = [`<a href="${BASE}/">Home</a>`];
    if (data.category) crumbs.push(`<a href="${BASE}/c/${esc(data.category.slug)}">${esc(data.category.name)}</a>`);
    if (q) crumbs.push(esc(`Search: ${q}`));
    document.getElementById("crumbs").innerHTML = crumbs.join(" › ");
    document.getElementById("count").textContent = data.total === 1 ? "1 result" : `${data.total} results`;
    const sort = document.getElementById("sort");
    sort.innerHTML = Object.entries(data.sorts).map(([k, label]) => `<option value="${k}"${k === data.sort ? " selected" : ""}>${esc(label)}</option>`).join("");
    const results = document.getElementById("results");
    if (!data.items.length) {
      results.innerHTML = `<div class="panel empty"><h2>No products match</h2><p>Try fewer words or clear some filters.</p></div>`;
      return;
    }
    if (Site.ui("list") === "infinite") {
      results.innerHTML = `<div class="grid" id="result-grid">${data.items.map(productCard).join("")}</div>`;
      endlessList(results, data);
      return;
    }
    let pages = "";
    if (data.pages > 1) {
      for (let i = 1; i <= data.pages; i++) {
        pages += `<button type="button" class="btn${i === data.page ? " btn-blue" : ""}" data-page="${i}" aria-label="Page ${i}"${i === data.page ? ' aria-current="page"' : ""}>${i}</button>`;
      }
    }
    results.innerHTML = `<div class="grid">${data.items.map(productCard).join("")}</div><nav class="pagination" aria-label="Pages">${pages}</nav>`;
    results.querySelectorAll("[data-page]").forEach((b) => b.addEventListener("click", () => update({ page: b.dataset.page })));
  }

  /* list=infinite (UI profile): no pages; the next page's products are appended when the end of
     the list scrolls into view, or when the "Load more" button there is pressed (keyboard, or a
     person who does not scroll). The URL keeps the filters, never a page. */
  function endlessList(results, first) {
    let page = first.page;
    let shown = first.items.length;
    let fetching = false;
    const more = document.createElement("div");
    more.className = "load-more";
    results.appendChild(more);
    function footer() {
      const done = page >= first.pages;
      more.innerHTML = `<p class="small muted" role="status">Showing ${shown} of ${first.total}</p>${done ? "" : '<button type="button" class="btn" id="load-more">Load more</button>'}`;
      const button = more.querySelector("#load-more");
      if (button) button.addEventListener("click", next);
      return !done;
    }
    async function next() {
      if (fetching || page >= first.pages) return;
      fetching = true;
      const p = currentQuery();
      p.set("page", String(page + 1));
      try {
        const data = await busy(more.querySelector("#load-more"), () => api("GET", "/products?" + p.toString()));
        if (!more.isConnected) return;  // the filters changed meanwhile: this list is gone
        page = data.page;
        shown += data.items.length;
        document.getElementById("result-grid").insertAdjacentHTML("beforeend", data.items.map(productCard).join(""));
        if (!footer()) watcher.disconnect();
      } catch (err) {
        reportError(err, next);
      } finally {
        fetching = false;
      }
    }
    const watcher = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) next(); });
    if (footer()) watcher.observe(more);
  }

  async function load() {
    if (!document.getElementById("results")) layout();
    const results = document.getElementById("results");
    loading(results, isSearch ? "Searching…" : "Loading products…");
    try {
      const data = await api("GET", "/products?" + currentQuery().toString());
      renderFilters(data);
      renderResults(data);
    } catch (err) {
      errorPanel(results, err, load);
    }
  }
  window.addEventListener("popstate", load);
  load();
})();
