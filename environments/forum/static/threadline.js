/* Threadline: every page's script (one renderer per page, on the site kit's window.Site). */
(function () {
  "use strict";
  const S = window.Site;
  S.configure({ name: "Threadline" });
  const { api, BASE, h, show } = S;
  const app = S.main;
  const body = document.body;

  function ago(iso) {
    const now = window.__forumNow ? Date.parse(window.__forumNow) : Date.now();
    const mins = Math.max(1, Math.round((now - Date.parse(iso)) / 60000));
    if (mins < 60) return mins + " min ago";
    const hours = Math.round(mins / 60);
    if (hours < 24) return hours + (hours === 1 ? " hour ago" : " hours ago");
    const days = Math.round(hours / 24);
    if (days < 60) return days + (days === 1 ? " day ago" : " days ago");
    return Math.round(days / 30) + " months ago";
  }
  function compact(n) { return n >= 10000 ? (n / 1000).toFixed(0) + "k" : n >= 1000 ? (n / 1000).toFixed(1) + "k" : String(n); }
  /* form=modal (UI profile "modal-forms"): reply, report and message forms open in a modal dialog. */
  const modalForms = S.ui("form") === "modal";
  let dialogs = 0;
  function openForm(form, holder, title) {
    if (!modalForms) { holder.append(form); return; }
    const heading = h("h2", { id: "form-dialog-" + (++dialogs) }, title);
    form.classList.remove("box");
    const dialog = h("dialog", { class: "form-dialog", "aria-labelledby": heading.id }, heading, form);
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
  }
  function closeForm(form) {
    const dialog = form.closest("dialog");
    if (dialog) dialog.close(); else form.remove();
  }
  function notice(message, kind) {
    // A message shows where the person is looking: in an open dialog, else above the page.
    const host = document.querySelector("dialog.form-dialog[open]") || app;
    let region = document.getElementById("notice");
    if (region && region.parentNode !== host) { region.remove(); region = null; }
    if (!region) region = host.insertBefore(h("div", { id: "notice" }), host === app ? app.firstChild : host.children[1] || null);
    region.replaceChildren(h("div", { class: "notice " + (kind || "ok"), role: kind === "error" ? "alert" : "status" }, message));
  }
  async function act(button, work, after) {
    try { const out = await S.busy(button, work); if (after) after(out); return out; }
    catch (err) { S.reportError(err); notice(err.detail || "That didn't work.", "error"); return null; }
  }
  async function load(work, render) {
    try { render(await work()); }
    catch (err) { S.errorPanel(app, err, () => route()); }
  }

  function voteBox(kind, item, label) {
    const score = h("span", { class: "score", "aria-label": "Score" }, String(item.score));
    const up = h("button", { class: "vote up" + (item.my_vote === 1 ? " on" : ""), type: "button", "aria-label": "Upvote " + label, "aria-pressed": String(item.my_vote === 1) }, "▲");
    const down = h("button", { class: "vote down" + (item.my_vote === -1 ? " on" : ""), type: "button", "aria-label": "Downvote " + label, "aria-pressed": String(item.my_vote === -1) }, "▼");
    async function cast(value, button) {
      const next = item.my_vote === value ? 0 : value;
      await act(button, () => api("POST", "/votes", { target_kind: kind, target_id: item.id, value: next }), (res) => {
        item.my_vote = res.my_vote; item.score = res.score; score.textContent = String(res.score);
        up.classList.toggle("on", res.my_vote === 1); up.setAttribute("aria-pressed", String(res.my_vote === 1));
        down.classList.toggle("on", res.my_vote === -1); down.setAttribute("aria-pressed", String(res.my_vote === -1));
      });
    }
    up.addEventListener("click", () => cast(1, up));
    down.addEventListener("click", () => cast(-1, down));
    return h("div", { class: "votes" }, up, score, down);
  }
  function saveButton(kind, item) {
    const button = h("button", { class: "link-btn save" + (item.saved ? " saved" : ""), type: "button", "data-icon": "save" }, item.saved ? "Unsave" : "Save");
    button.addEventListener("click", () => act(button, () => item.saved
      ? api("DELETE", "/saved/" + item.id) : api("POST", "/saved", { target_kind: kind, target_id: item.id }), () => {
      item.saved = !item.saved; button.textContent = item.saved ? "Unsave" : "Save"; button.classList.toggle("saved", item.saved);
      notice(item.saved ? "Saved." : "Removed from saved.");
    }));
    return button;
  }
  function reportButton(kind, item, holder) {
    const button = h("button", { class: "link-btn", type: "button", "data-icon": "flag" }, "Report");
    button.addEventListener("click", () => {
      if (holder.querySelector("form.report")) return;
      const reason = h("select", { id: "reason-" + item.id, name: "reason" },
        ...[["", "Choose a reason"], ["spam", "Spam"], ["harassment", "Harassment"], ["misinformation", "Misinformation"], ["off_topic", "Off topic"], ["other", "Something else"]]
          .map(([v, t]) => h("option", { value: v }, t)));
      const note = h("input", { id: "note-" + item.id, name: "note", type: "text", maxlength: "1000" });
      const form = h("form", { class: "report box", "aria-label": "Report" },
        h("label", { for: reason.id }, "Reason"), reason,
        h("label", { for: note.id }, "Note for the moderators (optional)"), note,
        h("div", { class: "row" }, h("button", { class: "btn primary", type: "submit" }, "Submit report"),
          h("button", { class: "btn", type: "button", onclick: () => closeForm(form) }, "Cancel")));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        if (!reason.value) { notice("Choose a reason for your report.", "error"); return; }
        act(form.querySelector("[type=submit]"), () => api("POST", "/reports", { target_kind: kind, target_id: item.id, reason: reason.value, note: note.value }),
          () => { closeForm(form); notice("Thanks. Your report was sent to the moderators."); });
      });
      openForm(form, holder, kind === "post" ? "Report this post" : "Report this comment");
    });
    return button;
  }
  function media(p) {
    if (p.kind === "link") {
      let host = p.url; try { host = new URL(p.url).host; } catch (e) { /* keep */ }
      return h("a", { class: "ext-link", href: p.url, rel: "noopener nofollow", target: "_blank" }, host + " ↗");
    }
    if (p.kind === "image") return h("div", { class: "image-ph", role: "img", "aria-label": "Image: " + p.title }, h("span", { class: "image-label" }, "Image"));
    return null;
  }
  function meta(p) {
    return h("div", { class: "meta" },
      h("a", { class: "cm", href: BASE + "/c/" + p.community }, "c/" + p.community), " · Posted by ",
      h("a", { href: BASE + "/u/" + p.author }, "u/" + p.author), " · ", h("time", { datetime: p.created_at }, ago(p.created_at)),
      p.flair ? h("span", { class: "flair" }, p.flair) : null);
  }
  function postCard(p) {
    const holder = h("div", { class: "card-extra" });
    return h("article", { class: "post-card", "data-post": p.id },
      voteBox("post", p, "post: " + p.title),
      h("div", { class: "post-main" }, meta(p),
        h("h2", { class: "post-title" }, h("a", { href: BASE + "/posts/" + p.id }, p.title), p.kind !== "text" ? h("span", { class: "kind" }, p.kind) : null),
        p.body ? h("p", { class: "excerpt" }, p.body.length > 220 ? p.body.slice(0, 220) + "…" : p.body) : null,
        media(p),
        h("div", { class: "actions" }, h("a", { href: BASE + "/posts/" + p.id }, p.comments + (p.comments === 1 ? " comment" : " comments")), saveButton("post", p)),
        holder));
  }
  function sortTabs(current, href) {
    return h("nav", { class: "sort", "aria-label": "Sort posts" }, ...["hot", "new", "top"].map((s) =>
      h("a", { href: href(s), "aria-current": s === current ? "page" : null }, s[0].toUpperCase() + s.slice(1))));
  }
  function pager(page, href) {
    if (page.pages <= 1) return null;
    return h("nav", { class: "pager", "aria-label": "Pages" },
      page.page > 1 ? h("a", { href: href(page.page - 1), rel: "prev" }, "← Previous") : h("span", {}),
      h("span", {}, `Page ${page.page} of ${page.pages}`),
      page.page < page.pages ? h("a", { href: href(page.page + 1), rel: "next" }, "Next →") : h("span", {}));
  }
  function listing(page, empty) {
    if (!page.items.length) return h("div", { class: "empty" }, empty);
    return h("div", { class: "posts" }, page.items.map(postCard));
  }
  function joinButton(cm, after) {
    const button = h("button", { class: "btn " + (cm.subscribed ? "" : "primary"), type: "button", "aria-label": (cm.subscribed ? "Leave c/" : "Join c/") + cm.name }, cm.subscribed ? "Joined" : "Join");
    button.addEventListener("click", () => act(button, () => api(cm.subscribed ? "DELETE" : "PUT", `/communities/${cm.name}/subscription`), (res) => {
      Object.assign(cm, res);
      button.textContent = cm.subscribed ? "Joined" : "Join";
      button.className = "btn " + (cm.subscribed ? "" : "primary");
      button.setAttribute("aria-label", (cm.subscribed ? "Leave c/" : "Join c/") + cm.name);
      notice(cm.subscribed ? `You joined c/${cm.name}.` : `You left c/${cm.name}.`);
      if (after) after();
    }));
    return button;
  }
  function sidebar(cm) {
    return h("aside", { class: "sidebar" }, h("section", { class: "box" },
      h("h2", {}, "About c/" + cm.name), h("p", {}, cm.description),
      h("p", { class: "muted" }, compact(cm.members) + " members · " + cm.posts + " posts"),
      joinButton(cm), " ", h("a", { class: "btn", href: `${BASE}/c/${cm.name}/submit` }, "Create post"),
      h("h3", {}, "Rules"), h("ol", {}, cm.rules.map((r) => h("li", {}, r)))));
  }

  let composeOpened = false;
  const pages = {
    async feed() {
      const q = S.params(); const sort = q.get("sort") || "hot"; const page = q.get("page") || "1";
      const scope = body.dataset.scope;
      const base = scope === "all" ? BASE + "/all" : BASE + "/";
      await load(() => api("GET", `/feed?scope=${scope}&sort=${sort}&page=${page}`), (data) => show(h("div", { class: "layout" },
        h("section", { class: "content" }, h("h1", {}, scope === "all" ? "All communities" : "Your home feed"),
          sortTabs(data.sort, (s) => `${base}?sort=${s}`),
          listing(data, scope === "all" ? "Nothing has been posted yet." : "Your feed is empty. Join a few communities to fill it."),
          pager(data, (n) => `${base}?sort=${data.sort}&page=${n}`)),
        h("aside", { class: "sidebar" }, h("section", { class: "box" }, h("h2", {}, "Threadline"),
          h("p", {}, "Your home feed shows posts from the communities you joined."),
          h("a", { class: "btn primary", href: BASE + "/communities" }, "Browse communities"))))));
    },
    async communities() {
      await load(() => api("GET", "/communities"), (data) => show(h("section", { class: "content wide" }, h("h1", {}, "Communities"),
        h("ul", { class: "cm-list" }, data.communities.map((cm) => h("li", { class: "box" },
          h("div", {}, h("a", { class: "cm-name", href: BASE + "/c/" + cm.name }, "c/" + cm.name), h("div", { class: "muted" }, cm.title + " · " + compact(cm.members) + " members"), h("p", {}, cm.description)),
          joinButton(cm)))))));
    },
    async community() {
      const name = body.dataset.community; const q = S.params(); const sort = q.get("sort") || "hot"; const page = q.get("page") || "1";
      const base = `${BASE}/c/${name}`;
      await load(() => api("GET", `/communities/${encodeURIComponent(name)}?sort=${sort}&page=${page}`), (data) => {
        document.title = `c/${data.community.name} · Threadline`;
        show(h("div", { class: "banner" }, h("h1", {}, data.community.title), h("span", { class: "muted" }, "c/" + data.community.name)),
          h("div", { class: "layout" }, h("section", { class: "content" },
            h("form", { class: "in-search", role: "search", action: BASE + "/search" },
              h("input", { type: "hidden", name: "community", value: data.community.name }),
              h("label", { class: "sr-only", for: "cm-q" }, "Search this community"),
              h("input", { id: "cm-q", name: "q", type: "search", placeholder: "Search c/" + data.community.name })),
            sortTabs(data.posts.sort, (s) => `${base}?sort=${s}`),
            listing(data.posts, "No posts here yet. Be the first to post."),
            pager(data.posts, (n) => `${base}?sort=${data.posts.sort}&page=${n}`)), sidebar(data.community)));
      });
    },
    async submit() {
      const name = body.dataset.community;
      const title = h("input", { id: "post-title", name: "title", maxlength: "300", required: true });
      const kinds = ["text", "link", "image"].map((k) => h("label", { class: "radio" }, h("input", { type: "radio", name: "kind", value: k, checked: k === "text" }), k[0].toUpperCase() + k.slice(1)));
      const text = h("textarea", { id: "post-body", name: "body", rows: "8" });
      const url = h("input", { id: "post-url", name: "url", type: "url", placeholder: "https://" });
      const form = h("form", { class: "box submit-form" }, h("h1", {}, "Create a post in c/" + name),
        h("fieldset", {}, h("legend", {}, "Post type"), kinds),
        h("label", { for: title.id }, "Title"), title,
        h("label", { for: text.id }, "Text (optional)"), text,
        h("label", { for: url.id }, "Link (for link posts)"), url,
        h("div", { class: "row" }, h("button", { class: "btn primary", type: "submit" }, "Post"), h("a", { class: "btn", href: `${BASE}/c/${name}` }, "Cancel")));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        const kind = form.querySelector("input[name=kind]:checked").value;
        if (!title.value.trim()) { notice("Give your post a title.", "error"); return; }
        act(form.querySelector("[type=submit]"), () => api("POST", "/posts", { community: name, title: title.value, kind, body: text.value, url: url.value }),
          (p) => { location.href = `${BASE}/posts/${p.id}?created=1`; });
      });
      show(h("section", { class: "content wide" }, form));
    },
    async post() {
      const id = body.dataset.post; const sort = S.params().get("sort") || "top";
      await load(() => api("GET", `/posts/${encodeURIComponent(id)}?sort=${sort}`), (data) => {
        const p = data.post;
        document.title = `${p.title} · Threadline`;
        const extra = h("div", {});
        const article = h("article", { class: "post-full box", "data-post": p.id }, voteBox("post", p, "post"),
          h("div", { class: "post-main" }, meta(p), h("h1", { class: "post-title" }, p.title),
            p.body ? h("div", { class: "post-body" }, p.body.split("\n").filter(Boolean).map((line) => h("p", {}, line))) : null,
            media(p),
            h("div", { class: "actions" }, h("span", {}, data.comments.length + " comments"), saveButton("post", p), reportButton("post", p, extra)), extra));
        const box = h("textarea", { id: "comment-body", name: "body", rows: "4", placeholder: "What are your thoughts?" });
        const form = h("form", { class: "comment-form" }, h("label", { for: box.id }, "Comment as u/" + (window.__forumMe || "you")), box,
          h("button", { class: "btn primary", type: "submit" }, "Comment"));
        form.addEventListener("submit", (e) => {
          e.preventDefault();
          if (!box.value.trim()) { notice("Write something before you post a comment.", "error"); return; }
          act(form.querySelector("[type=submit]"), () => api("POST", `/posts/${p.id}/comments`, { body: box.value }), () => { location.reload(); });
        });
        const children = {};
        for (const c of data.comments) (children[c.parent_id || ""] = children[c.parent_id || ""] || []).push(c);
        function thread(parent, depth) {
          return (children[parent] || []).map((c) => {
            const holder = h("div", { class: "comment-extra" });
            const reply = h("button", { class: "link-btn", type: "button", "data-icon": "reply" }, "Reply");
            reply.addEventListener("click", () => {
              if (holder.querySelector("form.reply")) return;
              const area = h("textarea", { id: "reply-" + c.id, rows: "3" });
              const rf = h("form", { class: "reply" }, h("label", { for: area.id }, "Reply to u/" + c.author), area,
                h("div", { class: "row" }, h("button", { class: "btn primary", type: "submit" }, "Reply"), h("button", { class: "btn", type: "button", onclick: () => closeForm(rf) }, "Cancel")));
              rf.addEventListener("submit", (e) => {
                e.preventDefault();
                if (!area.value.trim()) { notice("Write something before you reply.", "error"); return; }
                act(rf.querySelector("[type=submit]"), () => api("POST", `/posts/${p.id}/comments`, { body: area.value, parent_id: c.id }), () => location.reload());
              });
              openForm(rf, holder, "Write a reply");
            });
            return h("div", { class: "comment depth-" + Math.min(depth, 6), id: "comment-" + c.id, "data-comment": c.id },
              h("div", { class: "c-meta" }, h("a", { class: "author", href: BASE + "/u/" + c.author }, "u/" + c.author), " · ", h("time", { datetime: c.created_at }, ago(c.created_at))),
              h("div", { class: "c-body" }, c.body.split("\n").filter(Boolean).map((line) => h("p", {}, line))),
              h("div", { class: "c-actions" }, voteBox("comment", c, "comment by " + c.author), reply, saveButton("comment", c), reportButton("comment", c, holder)),
              holder, h("div", { class: "replies" }, thread(c.id, depth + 1)));
          });
        }
        const comments = data.comments.length ? h("div", { class: "comments", "aria-label": "Comments" }, thread("", 0)) : h("div", { class: "empty" }, "No comments yet. Start the conversation.");
        const sortNav = h("nav", { class: "sort", "aria-label": "Sort comments" }, ...["top", "new"].map((s) =>
          h("a", { href: `${BASE}/posts/${p.id}?sort=${s}`, "aria-current": s === sort ? "page" : null }, s === "top" ? "Top" : "New")));
        show(h("div", { class: "layout" }, h("section", { class: "content" }, article, h("div", { class: "box" }, form, sortNav, comments)), sidebar(data.community)));
        if (S.params().get("created")) notice("Your post is live.");
      });
    },
    async search() {
      const q = S.params(); const term = q.get("q") || ""; const sort = q.get("sort") || "top"; const page = q.get("page") || "1"; const cm = q.get("community") || "";
      document.getElementById("header-q").value = term;
      const input = h("input", { id: "search-q", name: "q", type: "search", value: term, placeholder: "Search posts" });
      const form = h("form", { class: "in-search", role: "search", action: BASE + "/search" }, h("label", { class: "sr-only", for: input.id }, "Search posts"), input,
        cm ? h("input", { type: "hidden", name: "community", value: cm }) : null, h("button", { class: "btn primary", type: "submit", "data-icon": "search" }, "Search"));
      if (!term.trim()) { show(h("section", { class: "content wide" }, h("h1", {}, "Search"), form, h("div", { class: "empty" }, "Type a few words to search titles, text and links."))); return; }
      const href = (s, n) => `${BASE}/search?q=${encodeURIComponent(term)}&sort=${s}&page=${n || 1}${cm ? "&community=" + encodeURIComponent(cm) : ""}`;
      await load(() => api("GET", `/search?q=${encodeURIComponent(term)}&sort=${sort}&page=${page}&community=${encodeURIComponent(cm)}`), (data) => show(h("section", { class: "content wide" },
        h("h1", {}, `Results for “${term}”` + (cm ? ` in c/${cm}` : "")), form, h("p", { class: "muted" }, data.total + (data.total === 1 ? " post" : " posts")),
        sortTabs(data.sort, (s) => href(s)), listing(data, "No posts match your search. Try fewer or different words."), pager(data, (n) => href(data.sort, n)))));
    },
    async user() {
      const name = body.dataset.user;
      await load(() => api("GET", "/users/" + encodeURIComponent(name)), (u) => show(h("div", { class: "layout" },
        h("section", { class: "content" }, h("h1", {}, "u/" + u.username),
          h("h2", {}, "Posts"), u.posts.length ? h("div", { class: "posts" }, u.posts.map(postCard)) : h("div", { class: "empty" }, "No posts yet."),
          h("h2", {}, "Comments"), u.comments.length ? h("ul", { class: "user-comments" }, u.comments.map((c) => h("li", { class: "box" },
            h("p", {}, c.body), h("a", { href: `${BASE}/posts/${c.post_id}#comment-${c.id}` }, "View in thread"), " · " + c.score + " points"))) : h("div", { class: "empty" }, "No comments yet.")),
        h("aside", { class: "sidebar" }, h("section", { class: "box" }, h("h2", {}, "u/" + u.username), u.bio ? h("p", {}, u.bio) : null,
          h("p", { class: "muted" }, compact(u.karma) + " karma · joined " + u.joined_at.slice(0, 10)),
          u.username !== window.__forumMe ? h("a", { class: "btn primary", href: `${BASE}/messages?to=${u.username}` }, "Send a message") : null)))));
    },
    async saved() {
      await load(() => api("GET", "/saved"), (data) => show(h("section", { class: "content wide" }, h("h1", {}, "Saved"),
        h("h2", {}, "Posts"), data.posts.length ? h("div", { class: "posts" }, data.posts.map(postCard)) : h("div", { class: "empty" }, "You have not saved any posts."),
        h("h2", {}, "Comments"), data.comments.length ? h("ul", { class: "user-comments" }, data.comments.map((c) => h("li", { class: "box" },
          h("div", { class: "c-meta" }, "u/" + c.author), h("p", {}, c.body), h("a", { href: `${BASE}/posts/${c.post_id}#comment-${c.id}` }, "View in thread"), " ", saveButton("comment", c)))) : h("div", { class: "empty" }, "You have not saved any comments."))));
    },
    async messages() {
      const to = h("input", { id: "dm-to", name: "to", value: S.params().get("to") || "", placeholder: "username" });
      const subject = h("input", { id: "dm-subject", name: "subject", maxlength: "200" });
      const text = h("textarea", { id: "dm-body", name: "body", rows: "5" });
      const form = h("form", { class: "box compose", "aria-label": "New message" }, h("h2", {}, "New message"),
        h("label", { for: to.id }, "To"), to, h("label", { for: subject.id }, "Subject"), subject, h("label", { for: text.id }, "Message"), text,
        h("button", { class: "btn primary", type: "submit", "data-icon": "send" }, "Send"));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        if (!to.value.trim() || !subject.value.trim() || !text.value.trim()) { notice("Fill in the recipient, a subject and a message.", "error"); return; }
        act(form.querySelector("[type=submit]"), () => api("POST", "/messages", { recipient: to.value, subject: subject.value, body: text.value }),
          (m) => { closeForm(form); pages.messages().then(() => notice(`Message sent to u/${m.recipient}.`)); });
      });
      let compose = form;
      if (modalForms) {
        // The form opens in a dialog; a link to write to someone (?to=) opens it on arrival.
        form.removeAttribute("class");
        form.querySelector("h2").remove();
        form.querySelector("[type=submit]").after(" ", h("button", { class: "btn", type: "button", onclick: () => closeForm(form) }, "Cancel"));
        const write = h("button", { class: "btn primary", type: "button" }, "New message");
        write.addEventListener("click", () => openForm(form, null, "New message"));
        compose = h("section", { class: "box compose" }, h("h2", {}, "Write to a member"), h("p", { class: "muted" }, "Messages are private between you and them."), write);
        if (to.value && !composeOpened) { composeOpened = true; openForm(form, null, "New message"); }
      }
      await load(() => api("GET", "/messages"), (data) => {
        const row = (m, incoming) => {
          const li = h("li", { class: "msg box" + (incoming && !m.read ? " unread" : "") },
            h("div", { class: "c-meta" }, incoming ? "From u/" + m.sender : "To u/" + m.recipient, " · ", ago(m.sent_at)),
            h("button", { class: "link-btn subject", type: "button", "aria-expanded": "false" }, m.subject));
          li.querySelector("button").addEventListener("click", async (e) => {
            if (li.querySelector(".msg-body")) return;
            e.target.setAttribute("aria-expanded", "true");
            li.append(h("p", { class: "msg-body" }, m.body));
            if (incoming && !m.read) { try { await api("POST", `/messages/${m.id}/read`); li.classList.remove("unread"); } catch (err) { S.reportError(err); } }
          });
          return li;
        };
        show(h("div", { class: "layout" }, h("section", { class: "content" }, h("h1", {}, "Messages"),
          h("h2", {}, "Inbox"), data.received.length ? h("ul", { class: "msgs" }, data.received.map((m) => row(m, true))) : h("div", { class: "empty" }, "No messages yet."),
          h("h2", {}, "Sent"), data.sent.length ? h("ul", { class: "msgs" }, data.sent.map((m) => row(m, false))) : h("div", { class: "empty" }, "You have not sent any messages.")),
          h("aside", { class: "sidebar" }, compose)));
      });
    },
  };

  async function route() {
    const render = pages[S.page];
    if (render) await render();
  }
  api("GET", "/me").then((me) => {
    window.__forumMe = me.username;
    window.__forumNow = me.now;
    const who = document.getElementById("who");
    who.textContent = "u/" + me.username + (me.unread ? ` · ${me.unread} unread` : "");
  }).catch(() => {}).finally(route);
})();
