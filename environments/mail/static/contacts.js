/* Parcel Mail: the address book (search, add, edit, delete). */
(function () {
  "use strict";
  const M = window.Mail;
  const main = M.main;
  let contacts = [];
  let editing = null; // null: closed, "new", or a contact id
  let term = "";

  function editor(contact) {
    const c = contact || { name: "", email: "", company: "", phone: "", notes: "" };
    return `<form class="editor" id="contact-form" novalidate aria-label="${contact ? "Edit contact" : "New contact"}">
      <h2>${contact ? "Edit contact" : "New contact"}</h2>
      <div class="row-fields">
        <div class="field"><label for="c-name">Name</label><input id="c-name" name="name" value="${M.esc(c.name)}" autocomplete="off" required></div>
        <div class="field"><label for="c-email">Email</label><input id="c-email" name="email" type="email" value="${M.esc(c.email)}" autocomplete="off" required></div>
        <div class="field"><label for="c-company">Company</label><input id="c-company" name="company" value="${M.esc(c.company)}" autocomplete="off"></div>
        <div class="field"><label for="c-phone">Phone</label><input id="c-phone" name="phone" value="${M.esc(c.phone)}" autocomplete="off"></div>
      </div>
      <div class="field"><label for="c-notes">Notes</label><textarea id="c-notes" name="notes" rows="2">${M.esc(c.notes)}</textarea></div>
      <div id="contact-error"></div>
      <div class="actions"><button class="btn primary" type="submit" id="save-contact">Save contact</button>
        <button class="btn" type="button" id="cancel-contact">Cancel</button></div>
    </form>`;
  }

  function render() {
    const shown = contacts.filter((c) => !term || c.name.toLowerCase().includes(term) || c.email.includes(term) || c.company.toLowerCase().includes(term));
    const current = editing && editing !== "new" ? contacts.find((c) => c.id === editing) : null;
    main.innerHTML = `<div class="page-pad">
      <div class="panel-head"><h1 style="margin:0">Contacts</h1><span class="muted">${contacts.length}</span><span class="spacer"></span>
        <label class="visually-hidden" for="contact-search">Search contacts</label>
        <input type="search" id="contact-search" placeholder="Search contacts" value="${M.esc(term)}">
        <button class="btn primary" type="button" id="new-contact">New contact</button></div>
      ${editing ? editor(current) : ""}
      <table class="table" id="contacts" data-loaded="true"><thead><tr><th>Name</th><th>Email</th><th>Company</th><th>Phone</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${shown.map((c) => `<tr data-id="${M.esc(c.id)}">
        <td><span class="who-cell">${M.avatar(c.name)}<span class="contact-name">${M.esc(c.name)}</span></span></td>
        <td><a href="${M.BASE}/compose?to=${encodeURIComponent(c.email)}" title="Write to ${M.esc(c.name)}">${M.esc(c.email)}</a></td>
        <td>${M.esc(c.company)}</td><td>${M.esc(c.phone)}</td>
        <td class="act"><button class="btn" type="button" data-edit aria-label="Edit ${M.esc(c.name)}">Edit</button>
          <button class="btn danger" type="button" data-delete aria-label="Delete ${M.esc(c.name)}">Delete</button></td></tr>`).join("")}
      ${shown.length ? "" : `<tr><td colspan="5" class="muted">No contacts match “${M.esc(term)}”.</td></tr>`}</tbody></table></div>`;
    wire();
  }

  function wire() {
    const search = document.getElementById("contact-search");
    search.addEventListener("input", () => {
      term = search.value.trim().toLowerCase();
      const at = search.selectionStart;
      render();
      const again = document.getElementById("contact-search");
      again.focus();
      again.setSelectionRange(at, at);
    });
    document.getElementById("new-contact").addEventListener("click", () => { editing = "new"; render(); document.getElementById("c-name").focus(); });
    main.querySelectorAll("tr[data-id]").forEach((tr) => {
      const id = tr.dataset.id;
      tr.querySelector("[data-edit]").addEventListener("click", () => { editing = id; render(); document.getElementById("c-name").focus(); });
      tr.querySelector("[data-delete]").addEventListener("click", () => remove(id));
    });
    const form = document.getElementById("contact-form");
    if (form) {
      form.addEventListener("submit", (event) => { event.preventDefault(); save(); });
      document.getElementById("cancel-contact").addEventListener("click", () => { editing = null; render(); });
    }
  }

  function formData() {
    const value = (id) => document.getElementById(id).value;
    return { name: value("c-name"), email: value("c-email"), company: value("c-company"), phone: value("c-phone"), notes: value("c-notes") };
  }

  async function save() {
    const data = formData();
    const error = document.getElementById("contact-error");
    if (!data.name.trim() || !data.email.trim()) {
      error.innerHTML = `<div class="alert error" style="margin:0 0 12px" role="alert">Enter a name and an email address.</div>`;
      return;
    }
    try {
      const answer = await M.busy(document.getElementById("save-contact"), () => editing === "new"
        ? M.api("POST", "/contacts", data)
        : M.api("PATCH", `/contacts/${encodeURIComponent(editing)}`, data));
      M.toast(answer.message);
      editing = null;
      await load(true);
    } catch (err) {
      if (err.status === 422 || (err.status === 409 && editing === "new")) {
        error.innerHTML = `<div class="alert error" style="margin:0 0 12px" role="alert">${M.esc(err.detail)}</div>`;
      } else {
        M.reportError(err, () => save());
      }
    }
  }

  async function remove(id) {
    const contact = contacts.find((c) => c.id === id);
    const ok = await M.confirmDialog("Delete contact?", `${contact.name} (${contact.email}) will be removed from your contacts.`, "Delete", true);
    if (!ok) return;
    try {
      const answer = await M.api("DELETE", `/contacts/${encodeURIComponent(id)}`);
      M.toast(answer.message);
      if (editing === id) editing = null;
      await load(true);
    } catch (err) {
      M.reportError(err, () => remove(id));
    }
  }

  async function load(quiet) {
    if (!quiet) M.loading(main, "Loading contacts…");
    try {
      await M.ready;
      contacts = (await M.api("GET", "/contacts")).contacts;
      render();
    } catch (err) {
      M.errorPanel(main, err, () => load());
    }
  }

  load();
})();
