/* Brightcart: shared helpers for every page (API calls, errors, toasts, header, product cards). */
(function () {
  "use strict";
  const body = document.body;
  Site.configure({ name: "the store", loginPath: "/login", primaryButton: "btn-blue" });
  const { BASE, API, ApiError, api, reportError, errorPanel, loading, toast, busy, esc, params, loginUrl } = Site;

  function money(cents) {
    const sign = cents < 0 ? "-" : "";
    const abs = Math.abs(cents);
    return sign + "$" + Math.floor(abs / 100).toLocaleString("en-US") + "." + String(abs % 100).padStart(2, "0");
  }

  function date(iso, withYear) {
    if (!iso) return "";
    const d = new Date(iso);
    const opts = { month: "short", day: "numeric", timeZone: "UTC" };
    if (withYear !== false) opts.year = "numeric";
    return d.toLocaleDateString("en-US", opts);
  }

  function stars(rating) {
    const full = Math.round(rating);
    let out = "";
    for (let i = 1; i <= 5; i++) out += full >= i ? "★" : "☆";
    return `<span class="stars" aria-hidden="true">${out}</span><span class="visually-hidden">${rating} out of 5 stars</span>`;
  }

  const GLYPHS = {
    round: '<circle cx="60" cy="45" r="22" fill="#fff" opacity=".92"/><circle cx="60" cy="45" r="9" fill="currentColor" opacity=".5"/>',
    tall: '<rect x="48" y="14" width="24" height="62" rx="9" fill="#fff" opacity=".92"/><rect x="52" y="8" width="16" height="9" rx="3" fill="#fff" opacity=".8"/>',
    box: '<rect x="32" y="22" width="56" height="46" rx="6" fill="#fff" opacity=".92"/><rect x="32" y="22" width="56" height="12" rx="4" fill="currentColor" opacity=".25"/>',
    wear: '<path d="M40 22 L52 16 Q60 24 68 16 L80 22 L90 36 L80 42 L78 74 L42 74 L40 42 L30 36 Z" fill="#fff" opacity=".92"/>',
    shoe: '<path d="M26 58 Q28 40 40 38 L54 44 Q66 50 84 52 Q96 54 94 66 L26 66 Z" fill="#fff" opacity=".92"/><rect x="26" y="64" width="68" height="6" rx="3" fill="currentColor" opacity=".35"/>',
    flat: '<rect x="24" y="34" width="72" height="26" rx="6" fill="#fff" opacity=".92"/><rect x="30" y="40" width="34" height="4" rx="2" fill="currentColor" opacity=".3"/>',
    cup: '<path d="M38 26 H78 V60 Q78 72 66 72 H50 Q38 72 38 60 Z" fill="#fff" opacity=".92"/><path d="M78 34 Q92 34 90 46 Q88 56 78 56" stroke="#fff" stroke-width="6" fill="none" opacity=".92"/>',
    headset: '<path d="M32 56 V46 Q32 20 60 20 Q88 20 88 46 V56" stroke="#fff" stroke-width="7" fill="none"/><rect x="26" y="48" width="16" height="24" rx="6" fill="#fff"/><rect x="78" y="48" width="16" height="24" rx="6" fill="#fff"/>',
    book: '<rect x="36" y="16" width="48" height="60" rx="4" fill="#fff" opacity=".92"/><rect x="42" y="16" width="5" height="60" fill="currentColor" opacity=".3"/>',
    toy: '<rect x="30" y="44" width="22" height="22" rx="3" fill="#fff"/><rect x="56" y="44" width="22" height="22" rx="3" fill="#fff" opacity=".8"/><rect x="43" y="22" width="22" height="22" rx="3" fill="#fff" opacity=".9"/>',
  };
  const ICON_GLYPH = {
    headphones: "headset", earbuds: "headset", speaker: "round", battery: "box", cable: "flat", charger: "box",
    camera: "round", mouse: "round", kettle: "cup", mug: "cup", pan: "round", dripper: "cup", board: "flat",
    container: "box", blanket: "flat", scale: "flat", shirt: "wear", hoodie: "wear", jacket: "wear", socks: "wear",
    pants: "wear", vest: "wear", shoe: "shoe", boot: "shoe", slipper: "shoe", bottle: "tall", mat: "flat",
    band: "round", dumbbell: "flat", backpack: "box", hammock: "flat", roller: "flat", rope: "round", jar: "box",
    tube: "tall", toothbrush: "tall", trimmer: "tall", brush: "tall", dropper: "tall", notebook: "book", pen: "tall",
    lamp: "tall", cushion: "flat", riser: "flat", keyboard: "flat", pad: "flat", puzzle: "toy", blocks: "toy",
    dice: "toy", rainbow: "round", car: "box", cards: "book", plush: "round",
  };

  function productImage(image, label) {
    const hue = image ? image.hue : 210;
    const glyph = GLYPHS[ICON_GLYPH[image && image.icon] || "box"];
    const id = "g" + Math.random().toString(36).slice(2, 8);
    return `<svg class="product-img" viewBox="0 0 120 90" role="img" aria-label="${esc(label || "Product image")}" style="color:hsl(${hue},45%,30%)">
      <defs><linearGradient id="${id}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},62%,72%)"/><stop offset="1" stop-color="hsl(${(hue + 30) % 360},55%,52%)"/></linearGradient></defs>
      <rect width="120" height="90" fill="url(#${id})"/><ellipse cx="60" cy="80" rx="36" ry="5" fill="#000" opacity=".08"/>${glyph}</svg>`;
  }

  function priceHtml(card) {
    let html = `<span>${money(card.price_cents)}</span>`;
    if (card.list_price_cents && card.list_price_cents > card.price_cents) {
      const pct = Math.round((1 - card.price_cents / card.list_price_cents) * 100);
      html += `<span class="was">${money(card.list_price_cents)}</span><span class="save">-${pct}%</span>`;
    }
    return `<div class="price">${html}</div>`;
  }

  function stockHtml(card) {
    if (!card.in_stock) return `<span class="stock-out">Out of stock</span>`;
    if (card.low_stock) return `<span class="stock-low">Only a few left</span>`;
    return `<span class="stock-ok">In stock</span>`;
  }

  function productCard(card) {
    const href = `${BASE}/p/${encodeURIComponent(card.id)}`;
    return `<article class="product-card">
      <a class="cover" href="${href}" tabindex="-1" aria-hidden="true">${productImage(card.image, card.name)}</a>
      <div class="body">
        <span class="brand">${esc(card.brand)}</span>
        <a class="title" href="${href}">${esc(card.name)}</a>
        <div class="rating-line">${stars(card.rating)}<span>${card.rating.toFixed(1)} (${card.review_count.toLocaleString("en-US")})</span></div>
        ${priceHtml(card)}
        ${stockHtml(card)}
      </div>
    </article>`;
  }

  async function refreshHeader() {
    try {
      const me = await api("GET", "/me");
      const cart = document.getElementById("cart-count");
      const bell = document.getElementById("unread-count");
      const who = document.getElementById("account-greeting");
      if (cart) { cart.textContent = me.cart_count; cart.hidden = !me.cart_count; }
      if (bell) { bell.textContent = me.unread_notifications; bell.hidden = !me.unread_notifications; }
      if (who) who.textContent = me.signed_in ? `Hello, ${me.first_name}` : "Hello, sign in";
      const accountLink = document.getElementById("account-link");
      if (accountLink && !me.signed_in) accountLink.href = BASE + "/login";
      return me;
    } catch (err) {
      return null;
    }
  }

  function setupHeader() {
    const select = document.getElementById("search-category");
    const current = params().get("category");
    if (select && current) select.value = current;
    const input = document.getElementById("search-input");
    const q = params().get("q");
    if (input && q) input.value = q;
    refreshHeader();
  }

  window.Shop = {
    BASE, API, ApiError, api, reportError, errorPanel, loading, toast, busy, esc, money, date, stars,
    productImage, productCard, priceHtml, stockHtml, refreshHeader, params,
    page: body.dataset.page,
    main: document.getElementById("app"),
  };
  setupHeader();
})();
