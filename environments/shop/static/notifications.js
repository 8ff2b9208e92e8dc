/* Notification centre: open (marks read), mark all read. */
(function () {
  "use strict";
  const S = window.Shop;
  const { api, esc, date, errorPanel, loading, toast, busy, reportError, main, BASE } = S;
  const KIND = { order: ["Order", "blue"], promo: ["Offer", "warn"], account: ["Account", ""], recall: ["Safety notice", "danger"] };

  function render(data) {
    const items = data.notifications.map((n) => {
      const [label, kind] = KIND[n.kind] || [n.kind, ""];
      return `<article class="notification${n.is_read ? "" : " unread"}" data-note="${esc(n.id)}" tabindex="0" role="button" aria-label="${esc(n.title)}${n.is_read ? "" : " (unread)"}">
        <span class="dot${n.is_read ? " read" : ""}" aria-hidden="true"></span>
        <div style="flex:1"><div class="row" style="gap:8px"><span class="tag ${kind}">${esc(label)}</span><span class="n-title">${esc(n.title)}</span><span class="spacer"></span><span class="small muted">${date(n.created_at)}</span></div>
          <p style="margin:6px 0 0" class="small">${esc(n.body)}</p>${n.link ? `<span class="small" style="color:var(--brand)">Open ›</span>` : ""}</div></article>`;
    }).join("");
    main.innerHTML = `<div class="row"><h1>Notifications</h1><span class="muted">${data.unread} unread</span><span class="spacer"></span>
      <button type="button" class="btn" id="read-all"${data.unread ? "" : " disabled"}>Mark all as read</button></div>
      <section class="panel" style="padding:0;overflow:hidden">${items || '<div class="empty">You have no notifications.</div>'}</section>`;
    const byId = Object.fromEntries(data.notifications.map((n) => [n.id, n]));
    main.querySelectorAll("[data-note]").forEach((el) => {
      const open = () => openNote(byId[el.dataset.note]);
      el.addEventListener("click", open);
      el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(); } });
    });
    document.getElementById("read-all").addEventListener("click", (e) => busy(e.target, async () => {
      try {
        const result = await api("POST", "/notifications/read-all");
        toast(result.toast || result.message || "All notifications marked as read.", "success");
        await load();
        S.refreshHeader();
      } catch (err) {
        reportError(err);
      }
    }));
  }

  async function openNote(note) {
    try {
      if (!note.is_read) await api("POST", `/notifications/${encodeURIComponent(note.id)}/read`);
    } catch (err) {
      reportError(err);
      return;
    }
    if (note.link) location.href = BASE + note.link;
    else { await load(); S.refreshHeader(); }
  }

  async function load() {
    if (!main.querySelector(".notification")) loading(main, "Loading notifications…");
    try {
      render(await api("GET", "/notifications"));
    } catch (err) {
      errorPanel(main, err, load);
    }
  }
  load();
})();
