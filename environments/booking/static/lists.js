/* Staywell saved lists: browse lists, create and delete them, remove hotels. */
(async function () {
  "use strict";
  const { api, esc, money, photo, plural, stars, score, busy, toast, confirmDialog } = SW;
  const app = document.getElementById("app");
  await SW.ready;
  let lists = [];
  let current = SW.params().get("list");

  async function load() {
    SW.loading(app, "Loading your saved lists…");
    try {
      lists = (await api("GET", "/lists")).lists;
      if (!lists.some((l) => l.id === current)) current = lists.length ? lists[0].id : null;
      render();
    } catch (err) {
      SW.errorPanel(app, err, load);
    }
  }

  function render() {
    const list = lists.find((l) => l.id === current);
    app.innerHTML = `<div class="page-head"><h1>Saved lists</h1></div><div class="sidebar-layout">
      <aside class="panel"><nav class="list-nav" aria-label="Your lists">${lists.map((l) => `<button type="button" data-list="${esc(l.id)}" aria-current="${l.id === current}">
          <span>${esc(l.name)}</span><span class="muted">${l.count}</span></button>`).join("") || `<p class="muted small">No lists yet.</p>`}</nav>
        <form id="create-list" style="margin-top:14px"><div class="field"><label for="list-name">Create a list</label>
          <input id="list-name" maxlength="40" placeholder="List name"></div><button class="btn btn-brand btn-block" type="submit">Create list</button></form></aside>
      <section>${list ? listView(list) : `<div class="panel empty"><h2>Save places you love</h2><p>Tap the heart on any property to save it to a list.</p></div>`}</section></div>`;
    app.querySelectorAll("[data-list]").forEach((button) => button.addEventListener("click", () => {
      current = button.dataset.list;
      history.replaceState(null, "", "?list=" + encodeURIComponent(current));
      render();
    }));
    document.getElementById("create-list").addEventListener("submit", createList);
    app.querySelectorAll("[data-remove]").forEach((button) => button.addEventListener("click", () => removeItem(button)));
    const del = document.getElementById("delete-list");
    if (del) del.addEventListener("click", () => deleteList(del));
  }

  function listView(list) {
    const cards = list.items.map((item, i) => {
      const h = item.hotel;
      const moved = item.saved_price_cents && item.saved_price_cents !== h.price_from_cents
        ? `<div class="small ${h.price_from_cents > item.saved_price_cents ? "warn" : "good"}">${h.price_from_cents > item.saved_price_cents ? "Price went up" : "Price dropped"} since you saved it (was ${money(item.saved_price_cents, true)})</div>` : "";
      return `<article class="saved-card" aria-label="${esc(h.name)}">${photo(h.hue, i)}<div class="body">
        <div>${stars(h.stars)}</div><h2 style="font-size:1.05rem;margin:2px 0"><a href="${SW.hotelUrl(h.id, {})}">${esc(h.name)}</a></h2>
        <div class="small muted">${esc(h.neighborhood)}, ${esc(h.city)} · ${h.distance_km.toFixed(1)} km from centre</div>
        <div class="row" style="margin-top:8px">${score(h, true)}<span class="spacer"></span><span><span class="small muted">from</span> <strong>${money(h.price_from_cents, true)}</strong><span class="small muted"> / night</span></span></div>
        ${moved}<div class="actions"><a class="btn" href="${SW.hotelUrl(h.id, {})}">View property</a>
        <button class="btn btn-danger" type="button" data-remove="${esc(item.id)}" aria-label="Remove ${esc(h.name)} from ${esc(list.name)}">Remove</button></div></div></article>`;
    }).join("");
    return `<div class="page-head"><h2 style="margin:0">${esc(list.name)}</h2><span class="muted">${plural(list.count, "property", "properties")}</span>
      <span class="spacer"></span><button class="btn btn-danger" type="button" id="delete-list">Delete list</button></div>
      ${list.items.length ? `<div class="saved-grid">${cards}</div>` : `<div class="panel empty"><h2>This list is empty</h2><p>Save properties from their pages with the heart button.</p></div>`}`;
  }

  async function createList(event) {
    event.preventDefault();
    const name = document.getElementById("list-name").value.trim();
    if (!name) { toast("Give your list a name.", "error"); return; }
    await busy(event.target.querySelector("button"), async () => {
      try {
        const result = await api("POST", "/lists", { name });
        toast(result.message, "success");
        current = result.list.id;
        await load();
      } catch (err) {
        SW.reportError(err);
      }
    });
  }

  async function removeItem(button) {
    await busy(button, async () => {
      try {
        const result = await api("DELETE", `/lists/${encodeURIComponent(current)}/items/${encodeURIComponent(button.dataset.remove)}`);
        toast(result.message, "success");
        await load();
      } catch (err) {
        SW.reportError(err, () => removeItem(button));
      }
    });
  }

  async function deleteList(button) {
    const list = lists.find((l) => l.id === current);
    const ok = await confirmDialog({ title: `Delete “${list.name}”?`, html: `<p>The list and the ${plural(list.count, "property", "properties")} saved on it will be removed. Your bookings aren't affected.</p>`,
      confirm: "Delete list", cancel: "Keep list", danger: true });
    if (!ok) return;
    await busy(button, async () => {
      try {
        const result = await api("DELETE", `/lists/${encodeURIComponent(current)}`);
        toast(result.message, "success");
        current = null;
        await load();
      } catch (err) {
        SW.reportError(err);
      }
    });
  }

  load();
})();
