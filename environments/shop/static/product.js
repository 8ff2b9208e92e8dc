/* Product page: options, add to cart, wishlist, reviews and writing a review. */
(function () {
  "use strict";
  const S = window.Shop;
  const { api, esc, money, stars, productImage, productCard, priceHtml, errorPanel, loading, toast, busy, reportError, main, BASE } = S;
  const productId = document.body.dataset.product;
  let product = null;
  const chosen = { size: null, color: null };

  function variantFor(size, color) {
    return product.variants.find((v) => (v.size || null) === (size || null) && (v.color || null) === (color || null)) || null;
  }

  function optionStock(axis, value) {
    const other = axis === "size" ? "color" : "size";
    const matches = product.variants.filter((v) => v[axis] === value && (!chosen[other] || v[other] === chosen[other]));
    return matches.reduce((sum, v) => sum + v.stock, 0);
  }

  function optionsHtml(axis, label, values) {
    if (!values.length) return "";
    const buttons = values.map((value) => {
      const out = optionStock(axis, value) === 0;
      return `<button type="button" class="option${out ? " unavailable" : ""}" data-axis="${axis}" data-value="${esc(value)}" aria-pressed="${chosen[axis] === value}"${out ? ' title="Out of stock in this combination"' : ""}>${esc(value)}</button>`;
    }).join("");
    return `<div class="option-group" role="group" aria-label="${label}"><div class="label">${label}: <span class="muted">${esc(chosen[axis] || "Select")}</span></div><div class="option-list">${buttons}</div></div>`;
  }

  function availability() {
    if (!product.variants.length) {
      return product.stock > 0 ? (product.stock <= 5 ? `<span class="stock-low">Only ${product.stock} left in stock</span>` : `<span class="stock-ok">In stock</span>`) : `<span class="stock-out">Currently unavailable</span>`;
    }
    const needSize = product.sizes.length && !chosen.size;
    const needColor = product.colors.length && !chosen.color;
    if (needSize || needColor) return `<span class="muted">Select ${needSize ? "a size" : "a colour"} to see availability</span>`;
    const variant = variantFor(chosen.size, chosen.color);
    if (!variant || variant.stock === 0) return `<span class="stock-out">Out of stock in this option</span>`;
    if (variant.stock <= 5) return `<span class="stock-low">Only ${variant.stock} left in stock</span>`;
    return `<span class="stock-ok">In stock</span>`;
  }

  /* The quantity (1 to 10): a select, or under counter=stepper (UI profile) a number field between
     − and + buttons. Either way #quantity holds the number addToCart reads. */
  function quantityHtml() {
    if (Site.ui("counter") !== "stepper") {
      const options = Array.from({ length: 10 }, (_, i) => `<option value="${i + 1}">${i + 1}</option>`).join("");
      return `<label for="quantity">Quantity</label><select id="quantity" class="input">${options}</select>`;
    }
    return `<label for="quantity">Quantity</label>
      <div class="stepper qty-stepper">
        <button type="button" data-step="-1" aria-label="Decrease quantity" aria-controls="quantity" disabled>−</button>
        <input id="quantity" type="number" min="1" max="10" value="1" inputmode="numeric">
        <button type="button" data-step="1" aria-label="Increase quantity" aria-controls="quantity">+</button>
      </div>`;
  }

  function wireStepper(box) {
    const field = box.querySelector(".qty-stepper input");
    if (!field) return;
    const [down, up] = box.querySelectorAll(".qty-stepper button");
    function set(value) {
      const n = Math.min(10, Math.max(1, parseInt(value, 10) || 1));
      field.value = String(n);
      down.disabled = n <= 1;
      up.disabled = n >= 10;
    }
    down.addEventListener("click", () => set(parseInt(field.value, 10) - 1));
    up.addEventListener("click", () => set(parseInt(field.value, 10) + 1));
    field.addEventListener("change", () => set(field.value));
  }

  function renderBuyBox() {
    const box = document.getElementById("buy-box");
    box.innerHTML = `
      ${priceHtml(product)}
      <p class="small muted" style="margin:4px 0 10px">FREE delivery on orders over $35</p>
      <div id="availability">${availability()}</div>
      ${optionsHtml("color", "Colour", product.colors)}
      ${optionsHtml("size", "Size", product.sizes)}
      <div class="field" style="margin-top:12px">${quantityHtml()}</div>
      <button type="button" class="btn btn-primary btn-block btn-lg" id="add-to-cart" data-icon="cart">Add to cart</button>
      <button type="button" class="btn btn-block" id="add-to-wishlist" data-icon="heart" style="margin-top:8px">${product.in_wishlist ? "♥ In your wishlist" : "♡ Add to wishlist"}</button>
      <p class="small muted" style="margin-top:12px">${product.returnable ? "Free 30-day returns" : "Final sale: this item can't be returned"}</p>`;
    box.querySelectorAll(".option").forEach((b) => b.addEventListener("click", () => {
      const axis = b.dataset.axis;
      chosen[axis] = chosen[axis] === b.dataset.value ? null : b.dataset.value;
      renderBuyBox();
    }));
    wireStepper(box);
    document.getElementById("add-to-cart").addEventListener("click", addToCart);
    document.getElementById("add-to-wishlist").addEventListener("click", addToWishlist);
  }

  async function addToCart(event) {
    const button = event.currentTarget;  // not event.target: an icon button's click lands on its glyph
    let variantId = null;
    if (product.variants.length) {
      if ((product.sizes.length && !chosen.size) || (product.colors.length && !chosen.color)) {
        toast(`Please select ${product.sizes.length && !chosen.size ? "a size" : "a colour"} first.`, "error");
        return;
      }
      const variant = variantFor(chosen.size, chosen.color);
      variantId = variant ? variant.id : null;
    }
    const quantity = parseInt(document.getElementById("quantity").value, 10);
    const attempt = () => busy(button, async () => {
      try {
        const result = await api("POST", "/cart/items", { product_id: product.id, variant_id: variantId, quantity });
        toast(result.toast || result.message || "Added to your cart.", "success", { label: "View cart", run: () => { location.href = BASE + "/cart"; } });
        S.refreshHeader();
      } catch (err) {
        reportError(err, attempt);
      }
    });
    attempt();
  }

  async function addToWishlist(event) {
    if (product.in_wishlist) { location.href = BASE + "/wishlist"; return; }
    const button = event.currentTarget;
    const attempt = () => busy(button, async () => {
      try {
        const result = await api("POST", "/wishlist", { product_id: product.id });
        product.in_wishlist = true;
        toast(result.toast || result.message || "Saved to your wishlist.", "success", { label: "View wishlist", run: () => { location.href = BASE + "/wishlist"; } });
      } catch (err) {
        reportError(err, attempt);
      }
    });
    await attempt();
    renderBuyBox();
  }

  function reviewsHtml() {
    const list = product.reviews.map((r) => `<article class="review">
        <div><strong>${esc(r.author)}</strong>${r.mine ? ' <span class="tag blue">Your review</span>' : ""}</div>
        <div>${stars(r.rating)} <strong>${esc(r.title)}</strong></div>
        <div class="meta">Reviewed on ${S.date(r.created_at)}${r.verified_purchase ? ' · <span class="verified">Verified purchase</span>' : ""}</div>
        <p style="margin:6px 0">${esc(r.body)}</p>
        ${r.helpful_count ? `<div class="meta">${r.helpful_count} people found this helpful</div>` : ""}
      </article>`).join("");
    const mine = product.reviews.some((r) => r.mine);
    const starInputs = [1, 2, 3, 4, 5].map((n) => `<label title="${n} star${n > 1 ? "s" : ""}"><input type="radio" name="rating" value="${n}" aria-label="${n} star${n > 1 ? "s" : ""}"><span aria-hidden="true">★</span></label>`).join("");
    const form = mine ? "" : `
      <details class="panel" id="review-panel" style="margin-top:16px">
        <summary style="cursor:pointer;font-weight:700">Write a customer review</summary>
        <form id="review-form" style="margin-top:12px">
          <fieldset class="field" style="border:0;padding:0;margin:0 0 12px"><legend class="label">Overall rating</legend><div class="star-input" id="star-input">${starInputs}</div></fieldset>
          <div class="field"><label for="review-title">Headline</label><input id="review-title" maxlength="120" placeholder="What's most important to know?"></div>
          <div class="field"><label for="review-body">Your review</label><textarea id="review-body" rows="4" maxlength="2000" placeholder="What did you like or dislike?"></textarea></div>
          <button class="btn btn-blue" type="submit" id="submit-review">Submit review</button>
        </form>
      </details>`;
    return `<h2>Customer reviews</h2>
      <div class="rating-line" style="font-size:1rem">${stars(product.rating)} <strong>${product.rating.toFixed(1)} out of 5</strong> · ${product.review_count.toLocaleString("en-US")} ratings</div>
      ${form}
      <div style="margin-top:10px">${list || '<p class="muted">No written reviews yet.</p>'}</div>`;
  }

  function wireReviewForm() {
    const form = document.getElementById("review-form");
    if (!form) return;
    const labels = [...form.querySelectorAll("#star-input label")];
    form.querySelectorAll('input[name="rating"]').forEach((input) => input.addEventListener("change", () => {
      labels.forEach((l, i) => l.classList.toggle("on", i < parseInt(input.value, 10)));
    }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const picked = form.querySelector('input[name="rating"]:checked');
      const payload = {
        rating: picked ? parseInt(picked.value, 10) : 0,
        title: document.getElementById("review-title").value,
        body: document.getElementById("review-body").value,
      };
      if (!payload.rating) { toast("Choose a star rating first.", "error"); return; }
      const attempt = () => busy(document.getElementById("submit-review"), async () => {
        try {
          const result = await api("POST", `/products/${encodeURIComponent(product.id)}/reviews`, payload);
          toast(result.toast || result.message || "Thanks for your review!", "success");
          await load(true);
        } catch (err) {
          reportError(err, attempt);
        }
      });
      attempt();
    });
  }

  function render() {
    const features = product.features.map((f) => `<li>${esc(f)}</li>`).join("");
    const cat = product.category;
    document.title = product.name + " · Brightcart";
    main.innerHTML = `
      <nav class="breadcrumbs" aria-label="Breadcrumb"><a href="${BASE}/">Home</a> › ${cat ? `<a href="${BASE}/c/${esc(cat.slug)}">${esc(cat.name)}</a> › ` : ""}${esc(product.name)}</nav>
      <div class="product-layout">
        <div>${productImage(product.image, product.name)}</div>
        <div>
          <a class="small" href="${BASE}/search?q=${encodeURIComponent(product.brand)}">Visit the ${esc(product.brand)} store</a>
          <h1 class="product-title">${esc(product.name)}</h1>
          <div class="rating-line">${stars(product.rating)} <span>${product.rating.toFixed(1)}</span> <a href="#reviews">${product.review_count.toLocaleString("en-US")} ratings</a></div>
          <hr style="border:0;border-top:1px solid var(--line);margin:12px 0">
          <h3>About this item</h3>
          <p>${esc(product.description)}</p>
          <ul class="features">${features}</ul>
          <p class="small muted">Brand: ${esc(product.brand)}</p>
        </div>
        <aside class="panel buy-box" id="buy-box" aria-label="Buy"></aside>
      </div>
      <section class="panel" id="reviews" style="margin-top:24px">${reviewsHtml()}</section>
      ${product.related.length ? `<section style="margin-top:24px"><h2>More in ${esc(cat ? cat.name : "this department")}</h2><div class="grid">${product.related.map(productCard).join("")}</div></section>` : ""}`;
    renderBuyBox();
    wireReviewForm();
  }

  async function load(keepChoice) {
    if (!keepChoice) loading(main, "Loading product…");
    try {
      product = await api("GET", `/products/${encodeURIComponent(productId)}`);
      if (!keepChoice) {
        if (product.sizes.length === 1) chosen.size = product.sizes[0];
        if (product.colors.length === 1) chosen.color = product.colors[0];
      }
      render();
    } catch (err) {
      errorPanel(main, err, () => load());
    }
  }
  load();
})();
