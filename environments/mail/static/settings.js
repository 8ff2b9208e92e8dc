/* Parcel Mail: settings (general: name, signature, vacation reply), labels and filters. */
(function () {
  "use strict";
  const M = window.Mail;
  const main = M.main;
  const tab = document.body.dataset.tab || "general";
  const COLORS = [["#2f6fde", "Blue"], ["#1e8a5a", "Green"], ["#c2410c", "Orange"], ["#8b5cf6", "Purple"], ["#b91c5c", "Rose"], ["#0e7490", "Teal"], ["#a16207", "Amber"], ["#4b5563", "Grey"]];

  function tabs() {
    const link = (key, href, text) => `<a href="${M.BASE}${href}"${tab === key ? ' aria-current="page"' : ""}>${text}</a>`;
    return `<nav class="tabs" aria-label="Settings sections">${link("general", "/settings", "General")}${link("labels", "/settings/labels", "Labels")}${link("filters", "/settings/filters", "Filters")}</nav>`;
  }

  function problem(holder, message) {
    document.getElementById(holder).innerHTML = message ? `<div class="alert error" style="margin:0 0 12px" role="alert">${M.esc(message)}</div>` : "";
  }

  // ------------------------------------------------------------ general

  function general(s) {
    main.innerHTML = `${tabs()}<div class="page-pad" style="max-width:760px">
      <form id="settings-form" novalidate data-loaded="true">
        <section class="card"><h2>Your name</h2>
          <div class="field"><label for="display-name">Name shown to people you write to</label><input id="display-name" value="${M.esc(s.display_name)}"></div></section>
        <section class="card"><h2>Signature</h2>
          <div class="field"><label for="signature">Added to the end of every message you write</label><textarea id="signature" rows="4">${M.esc(s.signature)}</textarea></div></section>
        <section class="card"><h2>Vacation reply</h2>
          <div class="checkline"><input type="checkbox" id="vacation-enabled"${s.vacation_enabled ? " checked" : ""}><label for="vacation-enabled">Send an automatic reply while I'm away</label></div>
          <div class="row-fields">
            <div class="field"><label for="vacation-start">First day</label><input type="date" id="vacation-start" value="${M.esc(s.vacation_start || "")}"></div>
            <div class="field"><label for="vacation-end">Last day</label><input type="date" id="vacation-end" value="${M.esc(s.vacation_end || "")}"></div>
          </div>
          <div class="field"><label for="vacation-subject">Subject</label><input id="vacation-subject" value="${M.esc(s.vacation_subject)}" placeholder="Out of office"></div>
          <div class="field"><label for="vacation-message">Message</label><textarea id="vacation-message" rows="4">${M.esc(s.vacation_message)}</textarea></div>
        </section>
        <div id="settings-error"></div>
        <div class="actions"><button class="btn primary" type="submit" id="save-settings">Save changes</button>
          <a class="btn" href="${M.BASE}/">Cancel</a></div>
      </form></div>`;
    document.getElementById("settings-form").addEventListener("submit", (event) => { event.preventDefault(); saveGeneral(); });
  }

  async function saveGeneral() {
    const value = (id) => document.getElementById(id).value;
    const data = {
      display_name: value("display-name"), signature: value("signature"),
      vacation_enabled: document.getElementById("vacation-enabled").checked,
      vacation_start: value("vacation-start") || null, vacation_end: value("vacation-end") || null,
      vacation_subject: value("vacation-subject"), vacation_message: value("vacation-message"),
    };
    problem("settings-error", "");
    try {
      const answer = await M.busy(document.getElementById("save-settings"), () => M.api("PUT", "/settings", data));
      M.toast(answer.toast || answer.message || "Settings saved.");
      if (answer.settings) general(answer.settings);
      M.refreshSidebar();
    } catch (err) {
      if (err.status === 422) problem("settings-error", err.detail);
      else M.reportError(err, () => saveGeneral());
    }
  }

  // ------------------------------------------------------------ labels

  function labels(list) {
    const colorOptions = (chosen) => COLORS.map(([value, name]) => `<option value="${value}"${value === chosen ? " selected" : ""}>${name}</option>`).join("");
    main.innerHTML = `${tabs()}<div class="page-pad" style="max-width:820px">
      <form class="editor" id="label-form" novalidate data-loaded="true"><h2>Create a label</h2>
        <div class="row-fields"><div class="field"><label for="label-name">Label name</label><input id="label-name" autocomplete="off"></div>
        <div class="field"><label for="label-color">Colour</label><select id="label-color">${colorOptions("#2f6fde")}</select></div></div>
        <div id="label-error"></div>
        <div class="actions"><button class="btn primary" type="submit" id="create-label">Create label</button></div></form>
      <table class="table" id="labels" data-loaded="true"><thead><tr><th>Label</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>
      ${list.map((l) => `<tr data-id="${M.esc(l.id)}"><td><span class="who-cell"><span class="label-dot" style="background:${M.esc(l.color)}"></span>
        <a href="${M.BASE}/label/${encodeURIComponent(l.name)}">${M.esc(l.name)}</a></span></td>
        <td class="act"><button class="btn" type="button" data-rename aria-label="Rename ${M.esc(l.name)}">Rename</button>
        <button class="btn danger" type="button" data-delete aria-label="Delete label ${M.esc(l.name)}">Delete</button></td></tr>`).join("")}
      ${list.length ? "" : '<tr><td colspan="2" class="muted">No labels yet.</td></tr>'}</tbody></table></div>`;
    document.getElementById("label-form").addEventListener("submit", (event) => { event.preventDefault(); createLabel(); });
    main.querySelectorAll("tr[data-id]").forEach((tr) => {
      const label = list.find((l) => l.id === tr.dataset.id);
      tr.querySelector("[data-rename]").addEventListener("click", () => renameLabel(tr, label));
      tr.querySelector("[data-delete]").addEventListener("click", () => deleteLabel(label));
    });
  }

  async function createLabel() {
    const name = document.getElementById("label-name").value;
    problem("label-error", "");
    try {
      const answer = await M.busy(document.getElementById("create-label"), () =>
        M.api("POST", "/labels", { name, color: document.getElementById("label-color").value }));
      M.toast(answer.message);
      await M.refreshSidebar();
      load(true);
    } catch (err) {
      if (err.status === 422 || err.status === 409) problem("label-error", err.detail);
      else M.reportError(err, () => createLabel());
    }
  }

  function renameLabel(tr, label) {
    tr.cells[0].innerHTML = `<form class="filter-rule" novalidate><label class="visually-hidden" for="rename-${M.esc(label.id)}">New name for ${M.esc(label.name)}</label>
      <input id="rename-${M.esc(label.id)}" value="${M.esc(label.name)}" style="border:1px solid #c9d0d8;border-radius:8px;padding:6px 8px">
      <button class="btn primary" type="submit">Save</button></form>`;
    const form = tr.cells[0].querySelector("form");
    form.querySelector("input").focus();
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const answer = await M.api("PATCH", `/labels/${encodeURIComponent(label.id)}`, { name: form.querySelector("input").value });
        M.toast(answer.message);
        await M.refreshSidebar();
        load(true);
      } catch (err) {
        M.reportError(err);
      }
    });
  }

  async function deleteLabel(label) {
    const ok = await M.confirmDialog("Delete label?", `“${label.name}” will be removed from every conversation. The conversations themselves stay.`, "Delete", true);
    if (!ok) return;
    try {
      const answer = await M.api("DELETE", `/labels/${encodeURIComponent(label.id)}`);
      M.toast(answer.message);
      await M.refreshSidebar();
      load(true);
    } catch (err) {
      M.reportError(err, () => deleteLabel(label));
    }
  }

  // ------------------------------------------------------------ filters

  function describe(f) {
    const when = [];
    if (f.from_contains) when.push(`from contains “${f.from_contains}”`);
    if (f.subject_contains) when.push(`subject contains “${f.subject_contains}”`);
    const then = [];
    if (f.add_label) then.push(`apply label “${f.add_label}”`);
    if (f.archive) then.push("skip the Inbox (archive)");
    if (f.mark_read) then.push("mark as read");
    if (f.star) then.push("star it");
    return `<strong>When</strong> ${M.esc(when.join(" and "))} <strong>then</strong> ${M.esc(then.join(", "))}`;
  }

  function filters(list, labelList) {
    main.innerHTML = `${tabs()}<div class="page-pad" style="max-width:860px">
      <form class="editor" id="filter-form" novalidate><h2>Create a filter</h2>
        <p class="muted small" style="margin-top:-4px">Filters sort new mail as it arrives. Matching is not case-sensitive.</p>
        <div class="row-fields">
          <div class="field"><label for="filter-from">From contains</label><input id="filter-from" autocomplete="off" placeholder="name, address or domain"></div>
          <div class="field"><label for="filter-subject">Subject contains</label><input id="filter-subject" autocomplete="off"></div>
        </div>
        <div class="label" style="margin-bottom:4px">Then</div>
        <div class="field" style="max-width:320px"><label for="filter-label">Apply the label</label>
          <select id="filter-label"><option value="">Don't apply a label</option>${labelList.map((l) => `<option value="${M.esc(l.name)}">${M.esc(l.name)}</option>`).join("")}</select>
          <span class="hint">Need a new label? <a href="${M.BASE}/settings/labels">Create it under Labels</a>.</span></div>
        <div class="checkline"><input type="checkbox" id="filter-archive"><label for="filter-archive">Skip the Inbox (archive it)</label></div>
        <div class="checkline"><input type="checkbox" id="filter-read"><label for="filter-read">Mark as read</label></div>
        <div class="checkline"><input type="checkbox" id="filter-star"><label for="filter-star">Star it</label></div>
        <div class="checkline" style="margin-top:14px"><input type="checkbox" id="filter-existing"><label for="filter-existing">Also apply the filter to matching conversations already in your mailbox</label></div>
        <div id="filter-error"></div>
        <div class="actions"><button class="btn primary" type="submit" id="create-filter">Create filter</button></div>
      </form>
      <h2>Your filters</h2>
      <div id="filters" data-loaded="true">${list.length ? list.map((f) => `<div class="card filter-rule" data-id="${M.esc(f.id)}"><span class="desc">${describe(f)}</span>
        <button class="btn danger" type="button" data-delete aria-label="Delete filter">Delete</button></div>`).join("") : '<p class="muted">You have no filters yet.</p>'}</div>
    </div>`;
    document.getElementById("filter-form").addEventListener("submit", (event) => { event.preventDefault(); createFilter(); });
    main.querySelectorAll("[data-id] [data-delete]").forEach((button) => button.addEventListener("click", () => deleteFilter(button.closest("[data-id]").dataset.id)));
  }

  async function createFilter() {
    const checked = (id) => document.getElementById(id).checked;
    const data = {
      from_contains: document.getElementById("filter-from").value,
      subject_contains: document.getElementById("filter-subject").value,
      add_label: document.getElementById("filter-label").value || null,
      archive: checked("filter-archive"), mark_read: checked("filter-read"), star: checked("filter-star"),
      apply_to_existing: checked("filter-existing"),
    };
    problem("filter-error", "");
    try {
      const answer = await M.busy(document.getElementById("create-filter"), () => M.api("POST", "/filters", data));
      M.toast(answer.toast || answer.message);
      M.refreshCounts();
      load(true);
    } catch (err) {
      if (err.status === 422) problem("filter-error", err.detail);
      else M.reportError(err, () => createFilter());
    }
  }

  async function deleteFilter(id) {
    const ok = await M.confirmDialog("Delete filter?", "New mail will no longer be sorted by this filter. Mail it already sorted stays as it is.", "Delete", true);
    if (!ok) return;
    try {
      const answer = await M.api("DELETE", `/filters/${encodeURIComponent(id)}`);
      M.toast(answer.message);
      load(true);
    } catch (err) {
      M.reportError(err, () => deleteFilter(id));
    }
  }

  async function load(quiet) {
    if (!quiet) M.loading(main, "Loading settings…");
    try {
      await M.ready;
      if (tab === "labels") labels((await M.api("GET", "/labels")).labels);
      else if (tab === "filters") {
        const [rules, labelList] = await Promise.all([M.api("GET", "/filters"), M.api("GET", "/labels")]);
        filters(rules.filters, labelList.labels);
      } else general((await M.api("GET", "/settings")).settings);
    } catch (err) {
      M.errorPanel(main, err, () => load());
    }
  }

  load();
})();
