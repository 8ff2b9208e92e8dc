/* Parcel Mail: write a message (new, reply, reply all, forward, or a draft) with contact suggestions. */
(function () {
  "use strict";
  const M = window.Mail;
  const main = M.main;
  const q = M.params();
  const mode = q.get("reply") ? "reply" : q.get("reply_all") ? "reply_all" : q.get("forward") ? "forward" : q.get("draft") ? "draft" : "new";
  const sourceId = q.get("reply") || q.get("reply_all") || q.get("forward") || null;
  let draftId = q.get("draft") || null;
  let source = null;
  let contacts = [];
  let files = [];           // attachments of the forwarded message still included
  let inReplyTo = null;
  let forwardOf = null;
  let sending = false;

  const HEADINGS = { new: "New message", reply: "Reply", reply_all: "Reply all", forward: "Forward", draft: "Draft" };

  function quote(message) {
    const lines = message.body.split("\n").map((line) => "> " + line).join("\n");
    return `On ${M.longDate(message.sent_at)}, ${message.from_name} <${message.from_addr}> wrote:\n${lines}`;
  }

  function forwarded(message) {
    return `---------- Forwarded message ---------\nFrom: ${message.from_name} <${message.from_addr}>\nDate: ${M.longDate(message.sent_at)}\n` +
      `Subject: ${message.subject}\nTo: ${(message.to || []).join(", ")}\n${message.cc && message.cc.length ? "Cc: " + message.cc.join(", ") + "\n" : ""}\n${message.body}`;
  }

  function prefixed(prefix, subject) {
    const bare = subject.replace(/^((re|fwd?):\s*)+/i, "");
    return `${prefix}: ${bare}`;
  }

  function initial(me) {
    const signature = me.signature ? `\n\n--\n${me.signature}` : "";
    const fields = { to: q.get("to") || "", cc: "", bcc: "", subject: "", body: signature };
    if (!source) return fields;
    const mine = source.from_addr === me.email;
    if (mode === "reply" || mode === "reply_all") {
      inReplyTo = source.id;
      let to = mine ? source.to.slice() : [source.from_addr];
      let cc = [];
      if (mode === "reply_all") {
        to = to.concat(source.to.filter((a) => a !== me.email && !to.includes(a)));
        cc = source.cc.filter((a) => a !== me.email && !to.includes(a));
      }
      fields.to = to.join(", ");
      fields.cc = cc.join(", ");
      fields.subject = prefixed("Re", source.subject);
      fields.body = `${signature}\n\n${quote(source)}`;
    } else if (mode === "forward") {
      forwardOf = source.id;
      files = source.attachments.slice();
      fields.subject = prefixed("Fwd", source.subject);
      fields.body = `${signature}\n\n${forwarded(source)}`;
    }
    return fields;
  }

  function fromDraft(draft) {
    inReplyTo = draft.in_reply_to;
    forwardOf = draft.forward_of;
    files = draft.attachments.slice();
    return { to: draft.to.join(", "), cc: draft.cc.join(", "), bcc: draft.bcc.join(", "), subject: draft.subject, body: draft.body };
  }

  function render(fields) {
    const showCc = !!(fields.cc || fields.bcc);
    main.innerHTML = `
      <form class="compose" id="compose-form" novalidate>
        <div class="compose-head"><h1>${HEADINGS[mode]}</h1><span class="spacer"></span></div>
        <div class="compose-line"><label for="to">To</label><input id="to" name="to" autocomplete="off" value="${M.esc(fields.to)}" aria-autocomplete="list">
          <button class="toggle" type="button" id="show-cc"${showCc ? " hidden" : ""}>Cc/Bcc</button></div>
        <div class="compose-line" data-cc${showCc ? "" : " hidden"}><label for="cc">Cc</label><input id="cc" name="cc" autocomplete="off" value="${M.esc(fields.cc)}" aria-autocomplete="list"></div>
        <div class="compose-line" data-cc${showCc ? "" : " hidden"}><label for="bcc">Bcc</label><input id="bcc" name="bcc" autocomplete="off" value="${M.esc(fields.bcc)}" aria-autocomplete="list"></div>
        <div class="compose-line"><label for="subject">Subject</label><input id="subject" name="subject" autocomplete="off" value="${M.esc(fields.subject)}"></div>
        <div id="compose-error"></div>
        <label class="visually-hidden" for="body">Message</label>
        <textarea id="body" name="body">${M.esc(fields.body)}</textarea>
        <div class="compose-files" id="files"></div>
        <div class="compose-foot">
          <button class="btn primary" type="submit" id="send">Send</button>
          <button class="btn" type="button" id="save-draft">Save draft</button>
          <span class="spacer"></span>
          <button class="btn danger" type="button" id="discard">Discard</button>
        </div>
      </form>`;
    renderFiles();
    ["to", "cc", "bcc"].forEach((id) => suggest(document.getElementById(id)));
    document.getElementById("show-cc").addEventListener("click", (event) => {
      main.querySelectorAll("[data-cc]").forEach((line) => { line.hidden = false; });
      event.target.hidden = true;
      document.getElementById("cc").focus();
    });
    document.getElementById("compose-form").addEventListener("submit", (event) => { event.preventDefault(); send(); });
    document.getElementById("save-draft").addEventListener("click", () => saveDraft());
    document.getElementById("discard").addEventListener("click", () => discard());
    const body = document.getElementById("body");
    const focus = mode === "new" && !fields.to ? document.getElementById("to") : body;
    focus.focus();
    if (focus === body) body.setSelectionRange(0, 0);
  }

  function renderFiles() {
    const holder = document.getElementById("files");
    holder.innerHTML = files.map((a, i) => `<div class="attachment">${M.fileBadge(a.name)}<span class="meta"><span>${M.esc(a.name)}</span><small>${M.sizeText(a.size_kb)}</small></span>
      <button type="button" data-remove="${i}" aria-label="Remove attachment ${M.esc(a.name)}">×</button></div>`).join("");
    holder.querySelectorAll("[data-remove]").forEach((button) => button.addEventListener("click", () => {
      files.splice(parseInt(button.dataset.remove, 10), 1);
      renderFiles();
    }));
  }

  /* Contact suggestions under a recipients field: the part after the last comma is the query. */
  function suggest(input) {
    let list = null;
    let active = -1;
    let matches = [];
    function close() { if (list) { list.remove(); list = null; } active = -1; input.setAttribute("aria-expanded", "false"); }
    function choose(contact) {
      const parts = input.value.split(",");
      parts[parts.length - 1] = " " + contact.email;
      input.value = parts.map((p) => p.trim()).filter(Boolean).join(", ") + ", ";
      close();
      input.focus();
    }
    function show() {
      const term = input.value.split(",").pop().trim().toLowerCase();
      close();
      if (!term) return;
      matches = contacts.filter((c) => c.name.toLowerCase().includes(term) || c.email.includes(term)).slice(0, 6);
      if (!matches.length) return;
      list = document.createElement("ul");
      list.className = "suggestions";
      list.setAttribute("role", "listbox");
      list.id = input.id + "-suggestions";
      list.innerHTML = matches.map((c, i) => `<li role="option" id="${input.id}-opt-${i}" aria-selected="false">${M.avatar(c.name)}<span><strong>${M.esc(c.name)}</strong><small>${M.esc(c.email)}</small></span></li>`).join("");
      list.querySelectorAll("li").forEach((li, i) => li.addEventListener("mousedown", (event) => { event.preventDefault(); choose(matches[i]); }));
      input.parentNode.appendChild(list);
      input.setAttribute("aria-expanded", "true");
      input.setAttribute("aria-controls", list.id);
    }
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-expanded", "false");
    input.addEventListener("input", show);
    input.addEventListener("blur", () => setTimeout(close, 100));
    input.addEventListener("keydown", (event) => {
      if (!list) return;
      const items = list.querySelectorAll("li");
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        active = (active + (event.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
        items.forEach((li, i) => li.setAttribute("aria-selected", String(i === active)));
        input.setAttribute("aria-activedescendant", items[active].id);
      } else if (event.key === "Enter" && active >= 0) {
        event.preventDefault();
        choose(matches[active]);
      } else if (event.key === "Escape") {
        close();
      }
    });
  }

  function split(value) {
    return value.split(/[,;]/).map((part) => part.trim()).filter(Boolean);
  }

  function payload() {
    return {
      to: split(document.getElementById("to").value),
      cc: split(document.getElementById("cc").value),
      bcc: split(document.getElementById("bcc").value),
      subject: document.getElementById("subject").value,
      body: document.getElementById("body").value,
      in_reply_to: inReplyTo,
      forward_of: forwardOf,
      attachments: files.map((a) => a.name),
    };
  }

  function showError(message) {
    document.getElementById("compose-error").innerHTML = message
      ? `<div class="alert error error-banner" role="alert">${M.esc(message)}</div>` : "";
  }

  function afterwards() {
    if (source) return `${M.BASE}/thread/${encodeURIComponent(source.thread_id)}`;
    return `${M.BASE}/`;
  }

  async function send() {
    if (sending) return;
    const data = payload();
    if (!data.to.length && !data.cc.length && !data.bcc.length) {
      showError("Add at least one recipient.");
      document.getElementById("to").focus();
      return;
    }
    showError("");
    if (draftId) data.draft_id = draftId;
    sending = true;
    try {
      const answer = await M.busy(document.getElementById("send"), () => M.api("POST", "/messages/send", data));
      M.toastNext(answer.toast || answer.message || "Message sent.");
      location.href = afterwards();
    } catch (err) {
      if (err.status === 422) showError(err.detail);
      M.reportError(err, () => send());
    } finally {
      sending = false;
    }
  }

  async function saveDraft() {
    const data = payload();
    try {
      const answer = await M.busy(document.getElementById("save-draft"), () =>
        draftId ? M.api("PUT", `/drafts/${encodeURIComponent(draftId)}`, data) : M.api("POST", "/drafts", data));
      draftId = answer.draft.id;
      const url = new URL(location.href);
      url.search = "?draft=" + encodeURIComponent(draftId);
      history.replaceState(null, "", url);
      M.toast(answer.message || "Draft saved.");
      M.refreshCounts();
    } catch (err) {
      if (err.status === 422) showError(err.detail);
      M.reportError(err, () => saveDraft());
    }
  }

  async function discard() {
    if (draftId) {
      const ok = await M.confirmDialog("Discard this draft?", "The draft will be deleted.", "Discard", true);
      if (!ok) return;
      try {
        await M.api("DELETE", `/drafts/${encodeURIComponent(draftId)}`);
        M.toastNext("Draft discarded.");
      } catch (err) {
        M.reportError(err);
        return;
      }
    }
    location.href = source ? afterwards() : `${M.BASE}/`;
  }

  async function load() {
    M.loading(main, "Opening editor…");
    try {
      const me = await M.ready;
      const [settings, book] = await Promise.all([M.api("GET", "/settings"), M.api("GET", "/contacts")]);
      contacts = book.contacts;
      const profile = { email: me ? me.email : settings.settings.email, signature: settings.settings.signature };
      let fields;
      if (draftId) {
        const answer = await M.api("GET", `/messages/${encodeURIComponent(draftId)}`);
        if (answer.message.folder !== "drafts") throw new M.ApiError(409, "This draft has already been sent or discarded.");
        fields = fromDraft(answer.message);
        const origin = answer.message.in_reply_to || answer.message.forward_of;
        if (origin) source = (await M.api("GET", `/messages/${encodeURIComponent(origin)}`).catch(() => null) || {}).message || null;
      } else {
        if (sourceId) source = (await M.api("GET", `/messages/${encodeURIComponent(sourceId)}`)).message;
        fields = initial(profile);
      }
      render(fields);
    } catch (err) {
      M.errorPanel(main, err, () => load());
    }
  }

  load();
})();
