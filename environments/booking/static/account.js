/* Staywell account: profile, payment cards and the traveller's reviews. */
(async function () {
  "use strict";
  const { api, esc, busy, toast, confirmDialog } = SW;
  const app = document.getElementById("app");
  await SW.ready;

  async function load() {
    SW.loading(app, "Loading your account…");
    try {
      const [profile, mine] = await Promise.all([api("GET", "/account"), api("GET", "/reviews/mine")]);
      render(profile.account, profile.cards, mine.reviews);
    } catch (err) {
      SW.errorPanel(app, err, load);
    }
  }

  function render(account, cards, reviews) {
    const year = Number(SW.today.slice(0, 4));
    app.innerHTML = `<div class="page-head"><h1>Your account</h1></div><div class="two-col"><div>
      <section class="panel" id="profile"><h2>Profile</h2><form id="profile-form">
        <div class="grid-2"><div class="field"><label for="full-name">Full name</label><input id="full-name" name="full_name" value="${esc(account.full_name)}"></div>
        <div class="field"><label for="email">Email</label><input id="email" name="email" type="email" value="${esc(account.email)}"></div></div>
        <div class="field"><label for="phone">Phone number</label><input id="phone" name="phone" type="tel" value="${esc(account.phone)}"></div>
        <button class="btn btn-brand" type="submit">Save profile</button></form></section>
      <section class="panel" id="cards"><h2>Payment cards</h2>
        ${cards.map((c) => `<div class="card-line"><span class="card-art" aria-hidden="true">${esc(SW.brandCode(c.brand))}</span>
          <div style="flex:1"><strong>${esc(c.label)}</strong><div class="small muted">${c.expired ? "Expired" : "Expires"} ${esc(c.expiry)} · ${esc(c.holder)}</div></div>
          ${c.is_default ? `<span class="chip">Default</span>` : `<button class="btn" type="button" data-default="${esc(c.id)}" aria-label="Make ${esc(c.label)} your default card">Make default</button>`}
          <button class="btn btn-danger" type="button" data-remove="${esc(c.id)}" aria-label="Remove ${esc(c.label)}">Remove</button></div>`).join("")}
        <h3 style="margin-top:16px">Add a card</h3><form id="card-form">
          <div class="field"><label for="card-number">Card number</label><input id="card-number" inputmode="numeric" autocomplete="cc-number"></div>
          <div class="grid-2"><div class="field"><label for="card-month">Expiry month</label><select id="card-month">${Array.from({ length: 12 }, (_, i) => `<option value="${i + 1}">${String(i + 1).padStart(2, "0")}</option>`).join("")}</select></div>
          <div class="field"><label for="card-year">Expiry year</label><select id="card-year">${Array.from({ length: 10 }, (_, i) => `<option>${year + i}</option>`).join("")}</select></div></div>
          <div class="field"><label for="card-holder">Name on card</label><input id="card-holder" value="${esc(account.full_name)}"></div>
          <label class="opt"><input type="checkbox" id="card-default"> Make this my default card</label>
          <div style="margin-top:10px"><button class="btn btn-brand" type="submit">Save card</button></div></form></section>
      </div><aside><section class="panel" id="reviews"><h2>Your reviews</h2>
        ${reviews.map((r) => `<div class="review"><div class="row"><span class="score"><span class="num">${r.rating}</span></span><strong>${esc(r.title)}</strong></div>
          <div class="small muted">${esc(r.hotel_name)} · stay from ${esc(r.stay_text)}</div><p class="small">${esc(r.body)}</p></div>`).join("") || `<p class="muted">You haven't written any reviews yet. Past stays are in <a href="${SW.BASE}/trips#past">your trips</a>.</p>`}
      </section></aside></div>`;
    document.getElementById("profile-form").addEventListener("submit", (event) => write(event, "PATCH", "/account", {
      full_name: event.target.full_name.value, email: event.target.email.value, phone: event.target.phone.value }));
    document.getElementById("card-form").addEventListener("submit", (event) => write(event, "POST", "/cards", {
      number: document.getElementById("card-number").value, exp_month: Number(document.getElementById("card-month").value),
      exp_year: Number(document.getElementById("card-year").value), holder: document.getElementById("card-holder").value,
      make_default: document.getElementById("card-default").checked }));
    app.querySelectorAll("[data-default]").forEach((button) => button.addEventListener("click", (event) =>
      write(event, "POST", `/cards/${encodeURIComponent(button.dataset.default)}/default`)));
    app.querySelectorAll("[data-remove]").forEach((button) => button.addEventListener("click", async (event) => {
      const ok = await confirmDialog({ title: "Remove this card?", html: "<p>You can add it again at any time.</p>", confirm: "Remove card", danger: true });
      if (ok) write(event, "DELETE", `/cards/${encodeURIComponent(button.dataset.remove)}`);
    }));
  }

  async function write(event, method, path, body) {
    if (event.type === "submit") event.preventDefault();
    const button = event.type === "submit" ? event.target.querySelector("button[type=submit]") : event.currentTarget || event.target;
    await busy(button, async () => {
      try {
        const result = await api(method, path, body);
        toast(result.message, "success");
        await load();
      } catch (err) {
        SW.reportError(err);
      }
    });
  }

  load();
})();
