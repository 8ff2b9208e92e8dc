/* Parcel Mail: one conversation, its messages, and what can be done with it. */
(function () {
  "use strict";
  const M = window.Mail;
  const main = M.main;
  const threadId = document.body.dataset.thread;
  const from = M.params().get("from") || "inbox";
  const context = M.params().get("folder") || null; // trash or spam when opened from there
  let thread = null;
  let names = {};

  const TITLES = { inbox: "Inbox", starred: "Starred", sent: "Sent", drafts: "Drafts", archive: "Archive", trash: "Trash", spam: "Spam" };

  function backHref() {
    if (from.startsWith("label:")) return `${M.BASE}/label/${encodeURIComponent(from.slice(6))}`;
    if (from === "search") return document.referrer && document.referrer.includes("/search") ? document.referrer : `${M.BASE}/`;
    if (from === "inbox") return `${M.BASE}/`;
    return `${M.BASE}/folder/${encodeURIComponent(from)}`;
  }
  function backName() {
    if (from.startsWith("label:")) return from.slice(6);
    if (from === "search") return "results";
    return TITLES[from] || "Inbox";
  }

  function person(addr) {
    const name = names[addr];
    return name ? `${M.esc(name)}` : M.esc(addr);
  }

  // The icon of each action under the UI profile button=icon (site.js ICONS).
  const ICON = {
    archive: "archive", move_to_inbox: "undo", spam: "flag", trash: "trash", unread: "message",
    restore: "undo", not_spam: "undo", delete_forever: "delete",
  };

  function tools() {
    const folders = new Set(thread.messages.map((m) => m.folder));
    const list = [];
    if (context === "trash") return [["restore", "Restore"], ["delete_forever", "Delete forever"]];
    if (context === "spam") return [["not_spam", "Not spam"], ["delete_forever", "Delete forever"]];
    if (folders.has("inbox")) list.push(["archive", "Archive"]);
    else if (folders.has("archive")) list.push(["move_to_inbox", "Move to Inbox"]);
    if (folders.has("inbox") || folders.has("archive")) list.push(["spam", "Report spam"]);
    list.push(["trash", "Delete"], ["unread", "Mark as unread"]);
    return list;
  }

  function attachmentsHtml(message) {
    if (!message.attachments.length) return "";
    return `<div class="attachments" aria-label="Attachments">${message.attachments.map((a) => `
      <div class="attachment">${M.fileBadge(a.name)}<span class="meta"><span>${M.esc(a.name)}</span><small>${M.sizeText(a.size_kb)}</small></span></div>`).join("")}</div>`;
  }

  function messageHtml(message) {
    const me = M.me();
    const mine = me && message.from_addr === me.email;
    if (message.folder === "drafts") {
      return `<article class="message draft-card" data-id="${M.esc(message.id)}" aria-label="Your draft">
        <strong style="color:#b42318">Draft</strong> <span class="muted">to ${(message.to || []).map(person).join(", ") || "(no recipients)"}</span>
        <div class="msg-body" style="margin-left:0">${M.esc(message.body)}</div>
        <div class="actions"><a class="btn" href="${M.BASE}/compose?draft=${encodeURIComponent(message.id)}">Edit draft</a></div></article>`;
    }
    const to = (message.to || []).map(person).join(", ");
    const cc = (message.cc || []).map(person).join(", ");
    const star = message.is_starred;
    return `<article class="message" data-id="${M.esc(message.id)}" aria-label="Message from ${M.esc(message.from_name)}">
      <div class="msg-head">
        ${M.avatar(message.from_name)}
        <div class="msg-meta">
          <div class="msg-from"><strong>${M.esc(mine ? message.from_name + " (me)" : message.from_name)}</strong> <span class="addr">&lt;${M.esc(message.from_addr)}&gt;</span></div>
          <div class="msg-to">to ${to || "(no recipients)"}${cc ? ` · cc ${cc}` : ""}${message.folder !== "inbox" && message.folder !== "sent" ? ` · <span class="chip folder">${M.esc(TITLES[message.folder] || message.folder)}</span>` : ""}</div>
        </div>
        <span class="msg-date">${M.esc(M.longDate(message.sent_at))}</span>
        <div class="msg-actions">
          <button class="star${star ? " on" : ""}" type="button" data-star aria-pressed="${star}" aria-label="${star ? "Unstar this message" : "Star this message"}">${M.STAR}</button>
          <button class="tool" type="button" data-reply="reply" title="Reply">Reply</button>
          <button class="tool" type="button" data-reply="reply_all" title="Reply all">Reply all</button>
          <button class="tool" type="button" data-reply="forward" title="Forward">Forward</button>
        </div>
      </div>
      <div class="msg-body">${M.esc(message.body)}</div>
      ${attachmentsHtml(message)}
    </article>`;
  }

  function render() {
    const labels = thread.labels.map((name) => `<span class="chip">${M.esc(name)}<button type="button" data-unlabel="${M.esc(name)}" aria-label="Remove label ${M.esc(name)}">×</button></span>`).join("");
    const menu = context ? "" : `<label class="visually-hidden" for="label-menu">Label as</label>
      <select id="label-menu"><option value="">Label as…</option>${M.labels().filter((l) => !thread.labels.includes(l.name)).map((l) => `<option value="${M.esc(l.name)}">${M.esc(l.name)}</option>`).join("")}</select>`;
    const hidden = thread.hidden_count && !context
      ? `<p class="muted small">${thread.hidden_count} message${thread.hidden_count === 1 ? " of this conversation is" : "s of this conversation are"} in Trash or Spam.</p>` : "";
    const latest = [...thread.messages].reverse().find((m) => m.folder !== "drafts");
    main.innerHTML = `
      <div class="toolbar" role="toolbar" aria-label="Conversation actions">
        <a class="tool" href="${backHref()}" aria-label="Back to ${M.esc(backName())}">← ${M.esc(backName())}</a>
        ${tools().map(([action, text]) => `<button class="tool" type="button" data-action="${action}" data-icon="${ICON[action]}">${text}</button>`).join("")}
        ${menu}
      </div>
      <div class="thread-head"><h1>${M.esc(thread.subject)}</h1><div class="thread-labels">${labels}</div></div>
      <div class="messages" id="messages" data-loaded="true">
        ${hidden}
        ${thread.messages.map(messageHtml).join("")}
        ${latest && !context ? `<div class="reply-bar">
          <a class="btn" href="${composeHref("reply", latest.id)}">Reply</a>
          <a class="btn" href="${composeHref("reply_all", latest.id)}">Reply all</a>
          <a class="btn" href="${composeHref("forward", latest.id)}">Forward</a></div>` : ""}
      </div>`;
    wire();
  }

  function composeHref(mode, id) {
    return `${M.BASE}/compose?${mode}=${encodeURIComponent(id)}`;
  }

  function wire() {
    main.querySelectorAll("[data-action]").forEach((button) => button.addEventListener("click", () => act(button.dataset.action, null, button)));
    const menu = document.getElementById("label-menu");
    if (menu) menu.addEventListener("change", () => { if (menu.value) act("label_add", menu.value, menu); });
    main.querySelectorAll("[data-unlabel]").forEach((button) => button.addEventListener("click", () => act("label_remove", button.dataset.unlabel, button)));
    main.querySelectorAll("article.message").forEach((article) => {
      const id = article.dataset.id;
      const star = article.querySelector("[data-star]");
      if (star) star.addEventListener("click", () => toggleStar(id, star));
      article.querySelectorAll("[data-reply]").forEach((button) => button.addEventListener("click", () => {
        location.href = composeHref(button.dataset.reply, id);
      }));
    });
  }

  async function toggleStar(id, button) {
    const message = thread.messages.find((m) => m.id === id);
    const next = !message.is_starred;
    try {
      await M.api("POST", `/messages/${encodeURIComponent(id)}/star?starred=${next}`);
      message.is_starred = next;
      button.classList.toggle("on", next);
      button.setAttribute("aria-pressed", String(next));
      button.setAttribute("aria-label", next ? "Unstar this message" : "Star this message");
      M.toast(next ? "Message starred." : "Star removed.");
    } catch (err) {
      M.reportError(err, () => toggleStar(id, button));
    }
  }

  const STAYS = { label_add: true, label_remove: true };

  async function act(action, labelName, control) {
    if (action === "delete_forever") {
      const ok = await M.confirmDialog("Delete forever?", "This conversation will be deleted permanently. This can't be undone.", "Delete forever", true);
      if (!ok) return;
    }
    const payload = { thread_ids: [threadId], folder: context };
    if (labelName) payload.label = labelName;
    try {
      const answer = await M.busy(control.tagName === "BUTTON" ? control : null, () => M.api("POST", `/messages/actions/${action}`, payload));
      if (STAYS[action]) {
        M.toast(answer.toast || answer.message);
        await load(true);
        M.refreshCounts();
      } else {
        M.toastNext(answer.toast || answer.message);
        location.href = backHref();
      }
    } catch (err) {
      M.reportError(err, () => act(action, labelName, control));
      if (control.tagName === "SELECT") control.value = "";
    }
  }

  async function load(quiet) {
    if (!quiet) M.loading(main, "Opening conversation…");
    try {
      await M.ready;
      const [answer, book] = await Promise.all([
        M.api("GET", `/threads/${encodeURIComponent(threadId)}${context ? "?folder=" + context : ""}`),
        names.__loaded ? Promise.resolve(null) : M.api("GET", "/contacts").catch(() => null),
      ]);
      thread = answer;
      if (book) {
        book.contacts.forEach((c) => { names[c.email] = c.name; });
        names.__loaded = true;
      }
      thread.messages.forEach((m) => { if (!names[m.from_addr]) names[m.from_addr] = m.from_name; });
      const me = M.me();
      if (me) names[me.email] = "me";
      document.title = `${thread.subject} · Parcel Mail`;
      render();
      if (!quiet) M.refreshCounts();
    } catch (err) {
      M.errorPanel(main, err, () => load());
    }
  }

  load();
})();
