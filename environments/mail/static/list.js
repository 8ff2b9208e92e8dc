/* Parcel Mail: conversation lists (a folder, a label, search results) with bulk actions. */
(function () {
  "use strict";
  const M = window.Mail;
  const data = document.body.dataset;
  const main = M.main;
  const folder = data.folder || null;
  const label = data.label || null;
  const query = M.page === "search" ? (M.params().get("q") || "") : null;
  // UI profile list=load-more: one list that grows by a page at a time instead of Newer/Older pages.
  const loadMore = M.ui("list") === "load-more";
  let page = loadMore ? 1 : parseInt(M.params().get("page") || "1", 10) || 1;
  let result = null;
  const selected = new Set();

  const TITLES = { inbox: "Inbox", starred: "Starred", sent: "Sent", drafts: "Drafts", archive: "Archive", trash: "Trash", spam: "Spam" };
  const EMPTY = {
    inbox: "Your inbox is empty. Nice work!", starred: "No starred conversations. Star messages to find them here later.",
    sent: "Nothing sent yet.", drafts: "No drafts.", archive: "Nothing archived yet.",
    trash: "Trash is empty.", spam: "Hooray, no spam here!",
  };

  // The icon of each action under the UI profile button=icon (site.js ICONS).
  const ICON = {
    archive: "archive", move_to_inbox: "undo", spam: "flag", trash: "trash", read: "check", unread: "message",
    restore: "undo", not_spam: "undo", delete_forever: "delete",
  };

  // Which buttons a view offers, in order.
  function tools() {
    if (folder === "trash") return [["restore", "Restore"], ["delete_forever", "Delete forever"]];
    if (folder === "spam") return [["not_spam", "Not spam"], ["delete_forever", "Delete forever"]];
    if (folder === "drafts") return [];
    const list = [];
    if (folder === "inbox" || !folder) list.push(["archive", "Archive"]);
    if (folder === "archive" || !folder) list.push(["move_to_inbox", "Move to Inbox"]);
    if (folder !== "sent") list.push(["spam", "Report spam"]);
    list.push(["trash", "Delete"]);
    list.push(["read", "Mark as read"], ["unread", "Mark as unread"]);
    return list;
  }

  function viewTitle() {
    if (query !== null) return `Results for “${query}”`;
    if (label) return label;
    return TITLES[folder] || "Mail";
  }

  function threadHref(row) {
    if (folder === "drafts") return `${M.BASE}/compose?draft=${encodeURIComponent(row.latest_id)}`;
    const from = folder || (label ? "label:" + label : "search");
    return `${M.BASE}/thread/${encodeURIComponent(row.thread_id)}?from=${encodeURIComponent(from)}` +
      (folder === "trash" || folder === "spam" ? `&folder=${folder}` : "");
  }

  function rowHtml(row) {
    const who = folder === "sent" || folder === "drafts"
      ? (folder === "drafts" ? '<span style="color:#b42318">Draft</span> ' : "To: ") + M.esc((row.to || []).join(", "))
      : M.esc(row.participants.join(", ")) + (row.count > 1 ? `<span class="n">${row.count}</span>` : "");
    const chips = [];
    if (query !== null && row.folder !== "inbox") chips.push(`<span class="chip folder">${M.esc(TITLES[row.folder] || row.folder)}</span>`);
    row.labels.filter((name) => name !== label).forEach((name) => chips.push(`<span class="chip">${M.esc(name)}</span>`));
    const subject = row.subject || "(no subject)";
    return `<li class="row${row.unread ? " unread" : ""}${selected.has(row.thread_id) ? " selected" : ""}" data-thread="${M.esc(row.thread_id)}" data-latest="${M.esc(row.latest_id)}">
      <input class="check" type="checkbox" aria-label="Select conversation: ${M.esc(subject)}"${selected.has(row.thread_id) ? " checked" : ""}>
      <button class="star${row.starred ? " on" : ""}" type="button" aria-pressed="${row.starred}" aria-label="${row.starred ? "Starred" : "Not starred"}: ${M.esc(subject)}">${M.STAR}</button>
      <span class="who">${who}</span>
      <a class="gist" href="${threadHref(row)}">${chips.join("")}<span class="subject">${M.esc(subject)}</span><span class="snippet"> – ${M.esc(row.snippet)}</span></a>
      ${row.has_attachments ? M.CLIP : ""}
      <span class="when" title="${M.esc(M.longDate(row.sent_at))}">${M.esc(M.shortDate(row.sent_at))}</span>
    </li>`;
  }

  function render() {
    const rows = result.threads;
    const first = result.total ? (result.page - 1) * result.page_size + 1 : 0;
    const last = Math.min(result.total, result.page * result.page_size);
    const buttons = tools().map(([action, text]) => `<button class="tool" type="button" data-action="${action}" data-icon="${ICON[action]}" disabled>${text}</button>`).join("");
    const labelMenu = folder === "drafts" || folder === "trash" || folder === "spam" ? "" :
      `<label class="visually-hidden" for="label-menu">Label as</label>
       <select id="label-menu" disabled><option value="">Label as…</option>${M.labels().map((l) => `<option value="${M.esc(l.name)}">${M.esc(l.name)}</option>`).join("")}</select>`;
    main.innerHTML = `
      <div class="view-title"><h1>${M.esc(viewTitle())}</h1><span class="muted small">${result.total} conversation${result.total === 1 ? "" : "s"}</span></div>
      <div class="toolbar" role="toolbar" aria-label="Conversation actions">
        <input class="check" type="checkbox" id="select-all" aria-label="Select all">
        ${buttons}${labelMenu}
        <button class="tool" type="button" id="refresh" aria-label="Refresh">
          <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7" fill="none" stroke="currentColor" stroke-width="2"/></svg></button>
        <span class="spacer"></span>
        ${loadMore ? `<span class="range">${rows.length} of ${result.total}</span>` : `<span class="range">${first}–${last} of ${result.total}</span>
        <button class="tool" type="button" id="newer" aria-label="Newer"${result.page <= 1 ? " disabled" : ""}>‹</button>
        <button class="tool" type="button" id="older" aria-label="Older"${result.page >= result.pages ? " disabled" : ""}>›</button>`}
      </div>
      ${rows.length ? `<ul class="threads" id="threads" data-loaded="true">${rows.map(rowHtml).join("")}</ul>${moreHtml()}`
        : `<div class="empty" id="threads" data-loaded="true"><svg viewBox="0 0 24 24"><path d="M3 13l3-8h12l3 8v6H3z M3 13h5l1 3h6l1-3h5" fill="none" stroke="currentColor" stroke-width="1.5"/></svg>${M.esc(query !== null ? "No messages matched your search." : label ? "No conversations with this label." : EMPTY[folder] || "Nothing here.")}</div>`}`;
    wire();
    syncTools();
  }

  function moreHtml() {
    if (!loadMore || result.threads.length >= result.total) return "";
    const left = result.total - result.threads.length;
    return `<div class="load-more"><button class="btn" type="button" id="load-more">Load more conversations</button>
      <span class="muted small">${left} more</span></div>`;
  }

  function syncTools() {
    const any = selected.size > 0;
    main.querySelectorAll(".toolbar [data-action]").forEach((b) => { b.disabled = !any; });
    const menu = document.getElementById("label-menu");
    if (menu) menu.disabled = !any;
    const all = document.getElementById("select-all");
    if (all) all.checked = any && selected.size === result.threads.length;
  }

  function wire() {
    main.querySelectorAll(".row").forEach((li) => {
      const id = li.dataset.thread;
      li.querySelector(".check").addEventListener("change", (event) => {
        if (event.target.checked) selected.add(id); else selected.delete(id);
        li.classList.toggle("selected", event.target.checked);
        syncTools();
      });
      li.querySelector(".star").addEventListener("click", () => toggleStar(li));
      li.addEventListener("click", (event) => {
        if (event.target.closest("input, button, a")) return;
        li.querySelector(".gist").click();
      });
    });
    const all = document.getElementById("select-all");
    all.addEventListener("change", () => {
      selected.clear();
      if (all.checked) result.threads.forEach((row) => selected.add(row.thread_id));
      main.querySelectorAll(".row").forEach((li) => {
        li.querySelector(".check").checked = all.checked;
        li.classList.toggle("selected", all.checked);
      });
      syncTools();
    });
    main.querySelectorAll(".toolbar [data-action]").forEach((button) => {
      button.addEventListener("click", () => act(button.dataset.action, null, button));
    });
    const menu = document.getElementById("label-menu");
    if (menu) menu.addEventListener("change", () => { if (menu.value) act("label_add", menu.value, menu); });
    document.getElementById("refresh").addEventListener("click", () => load());
    if (loadMore) {
      const more = document.getElementById("load-more");
      if (more) more.addEventListener("click", () => showMore(more));
      return;
    }
    document.getElementById("newer").addEventListener("click", () => go(page - 1));
    document.getElementById("older").addEventListener("click", () => go(page + 1));
  }

  // list=load-more: fetch the next page and show it under the rows already there (keeping the
  // selection); the first new conversation gets the focus, so keyboard users read on from there.
  async function showMore(button) {
    const before = result.threads.length;
    page += 1;
    await M.busy(button, () => load(true));
    const first = main.querySelectorAll(".row .gist")[before];
    if (first) first.focus();
  }

  function go(next) {
    page = Math.max(1, next);
    const url = new URL(location.href);
    url.searchParams.set("page", String(page));
    history.pushState(null, "", url);
    selected.clear();
    load();
  }

  async function toggleStar(li) {
    const row = result.threads.find((r) => r.thread_id === li.dataset.thread);
    const button = li.querySelector(".star");
    const next = !row.starred;
    try {
      await M.api("POST", `/messages/${encodeURIComponent(row.latest_id)}/star?starred=${next}`);
      if (!next) {
        // Unstarring a conversation unstars all of its messages.
        await M.api("POST", "/messages/actions/unstar", { thread_ids: [row.thread_id], folder });
      }
      row.starred = next;
      button.classList.toggle("on", next);
      button.setAttribute("aria-pressed", String(next));
      button.setAttribute("aria-label", `${next ? "Starred" : "Not starred"}: ${row.subject || "(no subject)"}`);
      if (folder === "starred" && !next) load();
    } catch (err) {
      M.reportError(err, () => toggleStar(li));
    }
  }

  const LEAVES = { archive: true, move_to_inbox: true, trash: true, restore: true, spam: true, not_spam: true, delete_forever: true };

  async function act(action, labelName, control) {
    const ids = Array.from(selected);
    if (!ids.length) return;
    if (action === "delete_forever") {
      const ok = await M.confirmDialog("Delete forever?", `${ids.length === 1 ? "This conversation" : ids.length + " conversations"} will be deleted permanently. This can't be undone.`, "Delete forever", true);
      if (!ok) return;
    }
    // Search results act on the messages they show (which may sit in Trash or Spam with `in:`).
    const payload = query !== null
      ? { message_ids: result.threads.filter((row) => ids.includes(row.thread_id)).flatMap((row) => row.message_ids) }
      : { thread_ids: ids, folder: folder === "trash" || folder === "spam" ? folder : null };
    if (labelName) payload.label = labelName;
    try {
      const answer = await M.busy(control && control.tagName === "BUTTON" ? control : null,
        () => M.api("POST", `/messages/actions/${action}`, payload));
      M.toast(answer.toast || answer.message || "Done.");
      selected.clear();
      if (LEAVES[action] && folder && folder !== "starred") {
        // The conversations leave this view at once; the next load shows the server's list.
        result.threads = result.threads.filter((row) => !ids.includes(row.thread_id));
        result.total = Math.max(0, result.total - ids.length);
        render();
      } else {
        await load(true);
      }
      M.refreshCounts();
    } catch (err) {
      M.reportError(err, () => act(action, labelName, control));
      if (control && control.tagName === "SELECT") control.value = "";
    }
  }

  function listPath(at) {
    if (query !== null) return `/search?q=${encodeURIComponent(query)}&page=${at}`;
    if (label) return `/messages?label=${encodeURIComponent(label)}&page=${at}`;
    return `/messages?folder=${encodeURIComponent(folder || "inbox")}&page=${at}`;
  }

  async function load(quiet) {
    if (!quiet) M.loading(main, query !== null ? "Searching…" : "Loading conversations…");
    try {
      await M.ready;
      if (loadMore) {
        // Every page shown so far, again: the list stays whole after conversations left it.
        const pages = [];
        for (let at = 1; at <= page; at += 1) pages.push(await M.api("GET", listPath(at)));
        result = pages[pages.length - 1];
        result.threads = pages.flatMap((one) => one.threads);
      } else {
        result = await M.api("GET", listPath(page));
      }
      const keep = new Set(result.threads.map((row) => row.thread_id));
      Array.from(selected).forEach((id) => { if (!keep.has(id)) selected.delete(id); });
      render();
    } catch (err) {
      M.errorPanel(main, err, () => load());
    }
  }

  if (M.page === "missing") {
    main.innerHTML = `<div class="empty">This folder doesn't exist. <a href="${M.BASE}/">Go to Inbox</a></div>`;
    return;
  }
  if (!loadMore) window.addEventListener("popstate", () => { page = parseInt(M.params().get("page") || "1", 10) || 1; load(); });
  load();
})();
