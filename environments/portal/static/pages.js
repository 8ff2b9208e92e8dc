/* Larkspur Health: one renderer per page (the page name is the body's data-page). */
(function () {
  "use strict";
  const P = window.Portal;
  const { h, api, params, money, cents, dateText, longDate, dayName, timeText, when, plural, show, notice, submit, table, field, select, sections, pill, heading } = P;
  const BASE = P.BASE;
  const body = document.body;
  const VISIT_TYPES = { in_person: "In person", video: "Video visit" };
  const STATUS = { scheduled: ["Scheduled", "ok"], requested: ["Awaiting confirmation", "pending"], completed: ["Completed", "muted"], cancelled: ["Cancelled", "bad"] };

  function says(answer, fallback) { return (answer && (answer.toast || answer.message)) || fallback; }
  function link(href, text, attrs) { return h("a", Object.assign({ href: BASE + href }, attrs || {}), text); }
  function statusPill(visit) { const [text, kind] = STATUS[visit.status] || [visit.status, ""]; return pill(text, kind); }

  // ------------------------------------------------------------------ home
  async function home() {
    const [data, me] = await Promise.all([api("GET", "/home"), api("GET", "/me")]);
    const first = me.name.split(" ")[0];
    const visits = data.upcoming.map((a) => h("li", { class: "visit-mini" },
      h("div", { class: "date-chip" }, h("span", { text: dayName(a.start).split(",")[0] }), h("strong", { text: dayName(a.start).split(" ").pop() })),
      h("div", {}, link(`/appointments/${a.id}`, `${a.reason} with ${a.provider_name}`), h("div", { class: "muted", text: `${when(a.start)} · ${VISIT_TYPES[a.visit_type]}` })),
      statusPill(a)));
    const card = (title, content, action) => h("section", { class: "panel card" }, h("h2", { text: title }), content, action || null);
    show(h("div", { class: "welcome" }, h("h1", { text: `Welcome back, ${first}` }), h("p", { class: "muted", text: `Today is ${longDate(me.today)}.` })),
      h("div", { class: "quick" },
        link("/appointments/new", "Schedule a visit", { class: "btn primary" }), link("/messages/new", "Message my care team", { class: "btn" }),
        link("/medications", "Request a refill", { class: "btn" }), link("/billing", "Pay a bill", { class: "btn" })),
      h("div", { class: "cards" },
        card("Upcoming visits", visits.length ? h("ul", { class: "plain" }, visits) : h("p", { class: "empty-row", text: "You have no upcoming visits." }), link("/appointments", "All appointments")),
        card("Messages", data.unread_threads.length ? h("ul", { class: "plain" }, data.unread_threads.map((t) => h("li", {}, link(`/messages/${t.id}`, t.subject), h("span", { class: "muted", text: " · " + t.team })))) : h("p", { class: "empty-row", text: "No new messages." }), link("/messages", "Go to messages")),
        card("New test results", data.new_results.length ? h("ul", { class: "plain" }, data.new_results.map((r) => h("li", {}, link(`/results/${r.id}`, r.name), h("span", { class: "muted", text: " · " + dateText(r.collected_at) })))) : h("p", { class: "empty-row", text: "Nothing new since your last visit." }), link("/results", "All results")),
        card("Billing", h("p", { class: "big", text: money(data.balance_cents) }), link("/billing", data.balance_cents ? "View and pay" : "View statements")),
        card("Forms to complete", data.forms_due.length ? h("ul", { class: "plain" }, data.forms_due.map((f) => h("li", {}, link(`/forms/${f.id}`, f.title), h("span", { class: "muted", text: " · due " + dateText(f.due_date) })))) : h("p", { class: "empty-row", text: "You're all caught up." }), link("/forms", "All forms"))));
  }

  // ------------------------------------------------------------------ appointments
  function visitCard(a) {
    return h("article", { class: "visit", "aria-label": `${a.reason} on ${dateText(a.start)}` },
      h("div", { class: "date-chip big" }, h("span", { text: dayName(a.start).split(",")[0] }), h("strong", { text: dayName(a.start).split(" ").pop() }), h("span", { text: dayName(a.start).split(" ")[1] })),
      h("div", { class: "grow" }, h("h3", { text: a.reason }),
        h("p", {}, h("strong", { text: a.provider_name }), ` · ${a.department}`),
        h("p", { class: "muted", text: `${when(a.start)} · ${a.minutes} min · ${VISIT_TYPES[a.visit_type]}` }),
        h("p", { class: "muted", text: a.location })),
      h("div", { class: "right" }, statusPill(a), link(`/appointments/${a.id}`, "Details", { class: "btn small", "aria-label": `Details: ${a.reason} on ${dateText(a.start)}` })));
  }

  async function appointments() {
    const tab = params().get("tab") || "upcoming";
    const data = await api("GET", "/appointments?tab=" + tab);
    const tabs = h("nav", { class: "tabs", "aria-label": "Appointment lists" }, [["upcoming", "Upcoming"], ["past", "Past"], ["cancelled", "Cancelled"]].map(([v, t]) =>
      h("a", { href: `${BASE}/appointments${v === "upcoming" ? "" : "?tab=" + v}`, "aria-current": v === tab ? "page" : null }, t)));
    const empty = { upcoming: "You have no upcoming visits.", past: "No past visits yet.", cancelled: "No cancelled visits." }[tab];
    show(heading("Appointments", link("/appointments/new", "Schedule a visit", { class: "btn primary" })),
      h("section", { class: "panel" }, tabs, data.appointments.length ? h("div", { class: "visits" }, data.appointments.map(visitCard)) : h("p", { class: "empty-row", text: empty })),
      h("p", { class: "policy muted", text: "You can cancel or reschedule a visit online until 24 hours before it starts. After that, please call the clinic." }));
  }

  function slotPicker(slots, onPick) {
    if (!slots.length) return h("p", { class: "empty-row", text: "No open times in the next four weeks. Try another clinician or send your care team a message." });
    const byDay = new Map();
    for (const s of slots) {
      const key = s.start.slice(0, 10);
      if (!byDay.has(key)) byDay.set(key, []);
      byDay.get(key).push(s);
    }
    return h("div", { class: "days" }, [...byDay.entries()].map(([key, list]) => h("div", { class: "day" },
      h("h3", { text: longDate(key) }),
      h("div", { class: "slots" }, list.map((s) => h("button", { type: "button", class: "slot " + s.visit_type, "data-slot": s.id,
        "aria-label": `${dayName(s.start)} at ${timeText(s.start)}, ${VISIT_TYPES[s.visit_type].toLowerCase()}`,
        onclick: (e) => { document.querySelectorAll(".slot[aria-pressed]").forEach((b) => b.removeAttribute("aria-pressed")); e.currentTarget.setAttribute("aria-pressed", "true"); onPick(s); } },
        timeText(s.start), h("small", { text: s.visit_type === "video" ? "Video" : "In person" })))))));
  }

  async function schedule() {
    const q = params();
    const department = q.get("department") || "";
    const chosen = q.get("provider");
    const data = await api("GET", "/providers" + (department ? "?department=" + encodeURIComponent(department) : ""));
    const go = (changes) => { const next = new URLSearchParams({ department, ...changes }); for (const [k, v] of [...next]) if (!v) next.delete(k); location.search = next.toString(); };
    const dept = select([["", "All departments"], ...data.departments.map((d) => [d, d])], department, { typeahead: true });
    dept.addEventListener("change", () => go({ department: dept.value }));
    const list = data.providers.map((p) => h("li", { class: "provider" + (p.id === chosen ? " chosen" : "") },
      h("div", { class: "avatar", text: p.name.split(" ").map((w) => w[0]).join("") }),
      h("div", { class: "grow" }, h("h3", { text: p.display_name }), h("p", { class: "muted", text: p.specialty === p.department ? p.specialty : `${p.specialty} · ${p.department}` }),
        h("p", { class: "muted", text: p.location }),
        h("p", { class: "small" }, p.next_open ? `Next available: ${dayName(p.next_open)} at ${timeText(p.next_open)}` : "No open times in the next four weeks",
          p.video ? " · Offers video visits" : "", p.needs_referral ? " · Requests need the clinic's confirmation" : "")),
      h("button", { type: "button", class: "btn" + (p.id === chosen ? " primary" : ""), "aria-label": `See times for ${p.display_name}`, onclick: () => go({ provider: p.id }) }, "See times")));
    const picker = h("section", { class: "panel", id: "times" });
    show(heading("Schedule a visit"),
      h("div", { class: "split" },
        h("section", { class: "panel" }, h("h2", { text: "1. Choose a clinician" }), field("Department", "department", dept), h("ul", { class: "plain providers" }, list)),
        picker));
    if (!chosen) { picker.append(h("h2", { text: "2. Pick a time" }), h("p", { class: "empty-row", text: "Choose a clinician to see their open times." })); return; }
    const type = q.get("type") || "";
    const slotsData = await api("GET", `/providers/${chosen}/slots${type ? "?visit_type=" + type : ""}`);
    const prov = slotsData.provider;
    const typeSelect = select([["", "Any visit type"], ["in_person", "In person"], ["video", "Video visit"]], type);
    typeSelect.addEventListener("change", () => go({ provider: chosen, type: typeSelect.value }));
    const reason = h("input", { type: "text", maxlength: "200", placeholder: "e.g. Follow-up on blood pressure" });
    const summary = h("p", { class: "chosen-slot", "aria-live": "polite", text: "No time chosen yet." });
    let slot = null;
    const review = h("button", { type: "submit", class: "btn primary" }, "Review visit");
    const form = h("form", { class: "book", onsubmit: async (e) => {
      e.preventDefault();
      if (!slot) { notice("Pick a time for your visit."); return; }
      if (!reason.value.trim()) { notice("Tell us the reason for your visit."); reason.focus(); return; }
      const ok = await P.confirmDialog("Confirm your visit", [["Clinician", prov.display_name], ["When", when(slot.start)],
        ["Visit type", VISIT_TYPES[slot.visit_type]], ["Where", slot.visit_type === "video" ? "Video visit" : prov.location], ["Reason", reason.value.trim()]],
        prov.needs_referral ? "Send request" : "Book visit",
        prov.needs_referral ? h("p", { class: "note", text: "This clinician sees patients by referral: the clinic will confirm your request within 2 business days." }) : null);
      if (!ok) return;
      const made = await submit(review, () => api("POST", "/appointments", { slot_id: slot.id, reason: reason.value.trim() }));
      if (!made) return;
      if (made.appointment) {
        show(h("section", { class: "panel done" }, h("h1", { text: made.appointment.status === "requested" ? "Request sent" : "You're booked" }),
          visitCard(made.appointment), h("p", {}, link("/appointments", "Back to appointments"))));
      }
      notice(says(made, "Your visit is booked."), "ok");
    } }, field("Reason for visit", "visit-reason", reason), summary, review);
    picker.append(h("h2", { text: `2. Pick a time with ${prov.display_name}` }), field("Visit type", "visit-type", typeSelect),
      slotPicker(slotsData.slots, (s) => { slot = s; summary.textContent = `Chosen: ${when(s.start)} · ${VISIT_TYPES[s.visit_type]}`; }), form);
  }

  async function appointment() {
    const a = await api("GET", "/appointments/" + body.dataset.appointment);
    const actions = h("div", { class: "actions-row" });
    const area = h("div", {});
    const detail = h("section", { class: "panel" }, h("div", { class: "page-head" }, h("h1", { text: a.reason }), statusPill(a)),
      h("dl", { class: "facts" }, [["Clinician", a.provider_name], ["Department", a.department], ["When", when(a.start)], ["Length", `${a.minutes} minutes`],
        ["Visit type", VISIT_TYPES[a.visit_type]], ["Where", a.location], ["Booked on", dateText(a.booked_at)],
        a.status === "cancelled" ? ["Cancelled", `${dateText(a.cancelled_at)} · ${a.cancel_reason}`] : null].filter(Boolean).map(([k, v]) => [h("dt", { text: k }), h("dd", { text: v })])),
      actions, area);
    if (a.status === "scheduled" || a.status === "requested") {
      if (a.can_change) {
        actions.append(
          h("button", { type: "button", class: "btn", onclick: () => rescheduleArea(a, area) }, "Reschedule"),
          h("button", { type: "button", class: "btn danger", onclick: () => cancelArea(a, area) }, "Cancel visit"));
      } else {
        actions.append(h("p", { class: "note", text: "This visit starts in less than 24 hours, so it can't be changed online. To cancel or reschedule, call the clinic at (555) 201-3000." }));
      }
    }
    show(h("p", {}, link("/appointments", "← All appointments")), detail);
  }

  async function rescheduleArea(a, area) {
    const data = await api("GET", `/providers/${a.provider_id}/slots`);
    let slot = null;
    const move = h("button", { type: "button", class: "btn primary" }, "Review new time");
    move.addEventListener("click", async () => {
      if (!slot) { notice("Pick a new time first."); return; }
      const ok = await P.confirmDialog("Move your visit?", [["From", when(a.start)], ["To", when(slot.start)], ["Visit type", VISIT_TYPES[slot.visit_type]]], "Move visit");
      if (!ok) return;
      const done = await submit(move, () => api("POST", `/appointments/${a.id}/reschedule`, { slot_id: slot.id }));
      if (done) { await route(); notice(says(done, "Your visit was moved."), "ok"); }
    });
    area.replaceChildren(h("section", { class: "sub" }, h("h2", { text: `New time with ${a.provider_name}` }),
      slotPicker(data.slots, (s) => { slot = s; }), move));
  }

  function cancelArea(a, area) {
    const reason = select([["", "Choose a reason"], ["Schedule conflict", "Schedule conflict"], ["Feeling better", "Feeling better"],
      ["Booked another time", "Booked another time"], ["Transportation", "Transportation"], ["Other", "Other"]], "");
    const go = h("button", { type: "submit", class: "btn danger" }, "Cancel this visit");
    area.replaceChildren(h("form", { class: "sub", onsubmit: async (e) => {
      e.preventDefault();
      if (!reason.value) { notice("Choose a reason for cancelling."); return; }
      const ok = await P.confirmDialog("Cancel this visit?", [["Visit", `${a.reason} with ${a.provider_name}`], ["When", when(a.start)], ["Reason", reason.value]], "Yes, cancel visit");
      if (!ok) return;
      const done = await submit(go, () => api("POST", `/appointments/${a.id}/cancel`, { reason: reason.value }));
      if (done) { await route(); notice(says(done, "Your visit was cancelled."), "ok"); }
    } }, h("h2", { text: "Cancel visit" }), field("Reason", "cancel-reason", reason), go));
  }

  // ------------------------------------------------------------------ messages
  async function messages() {
    const data = await api("GET", "/messages");
    const rows = data.threads.map((t) => h("tr", { class: t.read ? "" : "unread" },
      h("td", {}, link(`/messages/${t.id}`, t.subject), h("div", { class: "muted snippet", text: `${t.last_author}: ${t.last_message}` })),
      h("td", { text: t.team }), h("td", { text: dateText(t.updated_at) }),
      h("td", {}, t.read ? null : pill("New", "pending"), t.status === "closed" ? pill("Closed", "muted") : null)));
    show(heading("Messages", link("/messages/new", "New message", { class: "btn primary" })),
      h("section", { class: "panel" }, table(["Conversation", "Care team", "Last update", ""], rows, "No messages yet.", "Conversations")));
  }

  async function compose() {
    const data = await api("GET", "/messages");
    const q = params();
    const team = select([["", "Choose a care team"], ...data.teams.map((t) => [t, t])], q.get("team") || "", { typeahead: true });
    const topic = select([["question", "A medical question"], ["appointment", "About an appointment"], ["prescription", "About a prescription"],
      ["results", "About a test result"], ["billing", "About a bill"]], q.get("topic") || "question");
    const subject = h("input", { type: "text", maxlength: "120", value: q.get("subject") || "" });
    const text = h("textarea", { rows: "8", maxlength: "4000" });
    const send = h("button", { type: "submit", class: "btn primary" }, "Send message");
    show(heading("New message"), h("section", { class: "panel narrow" },
      h("p", { class: "note", text: "Messages are answered within 2 business days. For anything urgent, call the clinic; in an emergency, call 911." }),
      h("form", { onsubmit: async (e) => {
        e.preventDefault();
        if (!team.value) { notice("Choose who should receive your message."); return; }
        const sent = await submit(send, () => api("POST", "/messages", { team: team.value, subject: subject.value, body: text.value, category: topic.value }));
        if (!sent) return;
        if (sent.thread) renderThread(sent); else show(heading("New message"));
        notice(says(sent, "Message sent."), "ok");
      } }, field("To", "msg-team", team), field("Topic", "msg-topic", topic), field("Subject", "msg-subject", subject), field("Message", "msg-body", text), send)));
  }

  function renderThread(data) {
    const t = data.thread;
    const bubbles = data.messages.map((m) => h("article", { class: "bubble" + (m.from_patient ? " mine" : "") },
      h("header", {}, h("strong", { text: m.from_patient ? "You" : m.author }), h("span", { class: "muted", text: " · " + dateText(m.sent_at) + " " + timeText(m.sent_at) })),
      h("p", { text: m.body })));
    const text = h("textarea", { rows: "4", maxlength: "4000" });
    const send = h("button", { type: "submit", class: "btn primary" }, "Send reply");
    const replyForm = t.status === "closed"
      ? h("p", { class: "note" }, "This conversation is closed. ", link(`/messages/new?team=${encodeURIComponent(t.team)}`, "Start a new message"))
      : h("form", { class: "reply", onsubmit: async (e) => {
        e.preventDefault();
        const done = await submit(send, () => api("POST", `/messages/${t.id}/reply`, { body: text.value }));
        if (done) { if (done.thread) renderThread(done); notice(says(done, "Reply sent."), "ok"); }
      } }, field("Reply", "reply-body", text), send);
    show(h("p", {}, link("/messages", "← All messages")),
      h("section", { class: "panel" }, h("div", { class: "page-head" }, h("h1", { text: t.subject }), h("span", { class: "muted", text: t.team })),
        h("div", { class: "conversation" }, bubbles), replyForm));
  }

  async function thread() { renderThread(await api("GET", "/messages/" + body.dataset.thread)); }

  // ------------------------------------------------------------------ medications
  async function medications() {
    const data = await api("GET", "/prescriptions");
    const stores = Object.fromEntries(data.pharmacies.map((p) => [p.id, p]));
    const active = data.prescriptions.filter((r) => r.status === "active");
    const past = data.prescriptions.filter((r) => r.status !== "active");
    const byId = Object.fromEntries(data.prescriptions.map((r) => [r.id, r]));
    const rows = active.map((r) => {
      let action;
      if (r.refill_pending) action = pill("Refill requested", "pending");
      else if (r.refills_left <= 0) action = h("span", {}, h("span", { class: "muted", text: "No refills left · " }), link(`/messages/new?team=Primary%20Care&topic=prescription&subject=${encodeURIComponent("Renewal: " + r.drug)}`, "Ask for a renewal"));
      else action = h("button", { type: "button", class: "btn small", "aria-label": `Request refill of ${r.drug}`, onclick: (e) => refill(r, e.currentTarget) }, "Request refill");
      return h("tr", { "data-rx": r.id },
        h("td", {}, h("strong", { text: r.drug }), h("div", { class: "muted", text: r.strength })),
        h("td", { class: "sig", text: r.sig }), h("td", { text: r.prescriber_name }),
        h("td", { text: r.pharmacy_name }), h("td", { class: "num", text: r.refills_left }),
        h("td", {}, dateText(r.last_filled), h("div", { class: "muted", text: "Runs out " + dateText(r.runs_out) })), h("td", {}, action));
    });
    async function refill(r, button) {
      const store = select(data.pharmacies.map((p) => [p.id, `${p.name}${p.mail_order ? " (mail order)" : ""}`]), r.pharmacy_id, { typeahead: true });
      const note = h("input", { type: "text", maxlength: "300" });
      const extra = h("div", {}, field("Pharmacy", "refill-pharmacy", store), field("Note for your care team (optional)", "refill-note", note));
      const ok = await P.confirmDialog(`Request a refill of ${r.drug}`, [["Medication", `${r.drug} ${r.strength}`], ["Quantity", String(r.quantity)], ["Refills left", String(r.refills_left)]], "Request refill", extra);
      if (!ok) return;
      const done = await submit(button, () => api("POST", "/refills", { prescription_id: r.id, pharmacy_id: store.value, note: note.value }));
      if (done) { await route(); notice(says(done, "Refill requested."), "ok"); }
    }
    const requests = data.refills.map((f) => h("tr", {}, h("td", { text: (byId[f.prescription_id] || {}).drug || "" }), h("td", { text: (stores[f.pharmacy_id] || {}).name || "" }),
      h("td", { text: dateText(f.requested_at) }), h("td", {}, pill(f.status === "pending" ? "Waiting for review" : f.status === "approved" ? "Sent to pharmacy" : "Denied", f.status === "pending" ? "pending" : f.status === "approved" ? "ok" : "bad"))));
    const pastRows = past.map((r) => h("tr", {}, h("td", {}, h("strong", { text: r.drug }), h("div", { class: "muted", text: r.strength })), h("td", { text: r.prescriber_name }),
      h("td", { text: dateText(r.last_filled) }), h("td", {}, pill(r.status === "expired" ? "Expired" : "Discontinued", "muted"))));
    show(heading("Medications"), sections("Medication lists", [
      ["Current medications", table(["Medication", "Directions", "Prescribed by", "Pharmacy", "Refills left", "Last filled", ""], rows, "You have no current prescriptions.", "Current medications")],
      ["Refill requests", table(["Medication", "Pharmacy", "Requested", "Status"], requests, "No refill requests yet.", "Refill requests")],
      ["Past medications", table(["Medication", "Prescribed by", "Last filled", "Status"], pastRows, "No past medications.", "Past medications")]]));
  }

  // ------------------------------------------------------------------ results
  const RESULT_STATUS = { final: ["Final", "ok"], preliminary: ["Preliminary · awaiting review", "pending"], pending: ["Pending", "muted"] };

  async function results() {
    const data = await api("GET", "/results");
    const rows = data.results.map((r) => h("tr", { class: r.viewed || r.status === "pending" ? "" : "unread" },
      h("td", {}, r.status === "pending" ? h("span", { text: r.name }) : link(`/results/${r.id}`, r.name), r.viewed || r.status === "pending" ? null : pill("New", "pending")),
      h("td", { text: dateText(r.collected_at) }), h("td", { text: r.ordered_by_name }),
      h("td", {}, pill(...(RESULT_STATUS[r.status] || [r.status, ""]))),
      h("td", {}, r.flagged ? h("span", { class: "flag-count", text: `${plural(r.flagged, "value")} out of range` }) : r.status === "pending" ? "" : h("span", { class: "muted", text: "All in range" }))));
    show(heading("Test results"), h("section", { class: "panel" },
      h("p", { class: "note", text: "Results appear here as soon as they're ready, sometimes before your clinician has reviewed them." }),
      table(["Test", "Collected", "Ordered by", "Status", "Flags"], rows, "No test results yet.", "Test results")));
  }

  function rangeText(c) {
    if (c.low !== null && c.high !== null) return `${c.low} - ${c.high} ${c.unit}`;
    if (c.high !== null) return `Below ${c.high} ${c.unit}`;
    if (c.low !== null) return `Above ${c.low} ${c.unit}`;
    return "";
  }

  async function result() {
    const r = await api("GET", "/results/" + body.dataset.result);
    const rows = r.components.map((c) => h("tr", { class: c.flag ? "flagged" : "" },
      h("td", { text: c.name }), h("td", { class: "num strong", text: `${c.value} ${c.unit}` }), h("td", { text: rangeText(c) }),
      h("td", {}, c.flag ? pill(c.flag === "H" ? "High" : "Low", "bad") : h("span", { class: "muted", text: "Normal" }))));
    show(h("p", {}, link("/results", "← All results")),
      h("section", { class: "panel" }, h("div", { class: "page-head" }, h("h1", { text: r.name }), pill(...(RESULT_STATUS[r.status] || [r.status, ""]))),
        h("p", { class: "muted", text: `Collected ${when(r.collected_at)} · Ordered by ${r.ordered_by_name}` }),
        r.comment ? h("blockquote", { class: "comment" }, h("strong", { text: `${r.ordered_by_name} wrote: ` }), r.comment) : null,
        !r.reviewed && r.status !== "pending" ? h("p", { class: "note", text: "Your clinician hasn't reviewed this result yet. They'll contact you if anything needs attention." }) : null,
        r.status === "pending" ? h("p", { class: "empty-row", text: "This result isn't ready yet." }) : table(["Component", "Your value", "Standard range", "Flag"], rows, "No values.", "Result components")));
  }

  // ------------------------------------------------------------------ billing
  function billStatus(b) {
    if (b.status === "paid") return pill("Paid", "ok");
    if (b.status === "in_review") return pill("In insurance review", "muted");
    return b.overdue ? pill("Past due", "bad") : pill("Due " + dateText(b.due_date), "pending");
  }

  async function billing() {
    const data = await api("GET", "/bills");
    const payArea = h("div", { id: "pay-area" });
    const rows = data.bills.map((b) => h("tr", { "data-bill": b.number },
      h("td", {}, h("strong", { text: b.number }), h("div", { class: "muted", text: b.service })), h("td", { text: dateText(b.service_date) }),
      h("td", { text: b.provider_name }), h("td", { class: "num", text: money(b.charges_cents) }), h("td", { class: "num", text: money(b.insurance_paid_cents) }),
      h("td", { class: "num strong", text: money(b.balance_cents) }), h("td", {}, billStatus(b)),
      h("td", {}, b.status === "due" ? h("button", { type: "button", class: "btn small", "aria-label": `Pay statement ${b.number}`, onclick: () => payForm(b, data.cards, payArea) }, "Pay") : null)));
    const history = data.payments.map((p) => {
      const bill = data.bills.find((b) => b.id === p.bill_id) || {};
      return h("tr", {}, h("td", { text: dateText(p.paid_at) }), h("td", { text: bill.number || "" }), h("td", { class: "num", text: money(p.amount_cents) }), h("td", { text: p.method }), h("td", { text: p.confirmation }));
    });
    show(heading("Billing", link("/insurance", "Insurance cards", { class: "btn" })),
      h("section", { class: "panel balance" }, h("span", { class: "muted", text: "Amount due" }), h("strong", { class: "big", text: money(data.balance_cents) })),
      payArea, sections("Billing records", [
        ["Statements", table(["Statement", "Date of service", "Clinician", "Charges", "Insurance paid", "You owe", "Status", ""], rows, "You have no statements.", "Statements")],
        ["Payment history", table(["Date", "Statement", "Amount", "Paid with", "Confirmation"], history, "No payments yet.", "Payment history")]]));
  }

  function payForm(b, cards, area) {
    const amount = h("input", { type: "text", inputmode: "decimal", value: (b.balance_cents / 100).toFixed(2) });
    const method = select([...cards.map((c) => [c.id, `${c.brand} ending ${c.last4} (expires ${c.expires})`]), ["new", "Use a different card"]], cards[0] ? cards[0].id : "new");
    const number = h("input", { type: "text", class: "card-number", inputmode: "numeric", autocomplete: "cc-number", maxlength: "23" });
    const numberField = field("Card number", "card-number", number);
    const sync = () => { numberField.hidden = method.value !== "new"; };
    method.addEventListener("change", sync);
    sync();
    const go = h("button", { type: "submit", class: "btn primary" }, "Review payment");
    area.replaceChildren(h("section", { class: "panel pay" }, h("h2", { text: `Pay statement ${b.number}` }),
      h("p", { class: "muted", text: `${b.service} · ${dateText(b.service_date)} · you owe ${money(b.balance_cents)}` }),
      h("form", { class: "inline-form", onsubmit: async (e) => {
        e.preventDefault();
        const value = cents(amount.value);
        if (!value) { notice("Enter an amount like 25.00."); amount.focus(); return; }
        const card = cards.find((c) => c.id === method.value);
        const payload = { amount_cents: value, card_id: card ? card.id : null, card_number: card ? null : number.value };
        const ok = await P.confirmDialog("Confirm your payment", [["Statement", b.number], ["Amount", money(value)],
          ["Paid with", card ? `${card.brand} ending ${card.last4}` : "Card ending " + number.value.replace(/\D/g, "").slice(-4)]], "Pay " + money(value));
        if (!ok) return;
        const done = await submit(go, () => api("POST", `/bills/${b.id}/pay`, payload));
        if (done) { await route(); notice(says(done, "Payment received."), "ok"); }
      } }, field("Amount", "pay-amount", amount), field("Pay with", "pay-method", method), numberField, go,
        h("button", { type: "button", class: "btn ghost", onclick: () => area.replaceChildren() }, "Close"))));
    amount.focus();
  }

  async function insurance() {
    const data = await api("GET", "/insurance");
    const cards = data.cards.map((c) => h("article", { class: "ins-card" + (c.status === "active" ? "" : " inactive"), "aria-label": `${c.insurer} ${c.plan}` },
      h("header", {}, h("strong", { text: c.insurer }), pill(c.status === "active" ? (c.coverage === "primary" ? "Primary" : "Secondary") : "Inactive", c.status === "active" ? (c.coverage === "primary" ? "ok" : "pending") : "muted")),
      h("p", { class: "plan", text: c.plan || "—" }),
      h("dl", {}, h("dt", { text: "Member ID" }), h("dd", { class: "member-id", text: c.member_id }),
        h("dt", { text: "Group" }), h("dd", { text: c.group_number || "—" }), h("dt", { text: "Subscriber" }), h("dd", { text: c.subscriber }),
        h("dt", { text: "Effective" }), h("dd", { text: dateText(c.effective_from) })),
      c.status === "active" ? h("div", { class: "actions-row" },
        c.coverage !== "primary" ? h("button", { type: "button", class: "btn small", "aria-label": `Make ${c.insurer} primary`, onclick: async (e) => {
          const ok = await P.confirmDialog("Make this your primary insurance?", [["Insurance", `${c.insurer} ${c.plan}`]], "Make primary");
          if (!ok) return;
          const done = await submit(e.currentTarget, () => api("POST", `/insurance/${c.id}/primary`));
          if (done) { await route(); notice(says(done, "Primary insurance updated."), "ok"); }
        } }, "Make primary") : null,
        h("button", { type: "button", class: "btn small ghost", "aria-label": `Remove ${c.insurer}`, onclick: async (e) => {
          const ok = await P.confirmDialog("Remove this card?", [["Insurance", `${c.insurer} ${c.plan}`]], "Remove card");
          if (!ok) return;
          const done = await submit(e.currentTarget, () => api("POST", `/insurance/${c.id}/remove`));
          if (done) { await route(); notice(says(done, "Card removed."), "ok"); }
        } }, "Remove")) : null));
    const insurer = h("input", { type: "text", maxlength: "80" });
    const plan = h("input", { type: "text", maxlength: "80" });
    const member = h("input", { type: "text", class: "member-id", maxlength: "30", autocomplete: "off" });
    const group = h("input", { type: "text", maxlength: "30" });
    const subscriber = h("input", { type: "text", maxlength: "80", placeholder: "You, if the plan is in your name" });
    const coverage = select([["primary", "Primary"], ["secondary", "Secondary"]], "primary");
    const effective = h("input", { type: "date" });
    const add = h("button", { type: "submit", class: "btn primary" }, "Review card");
    const form = h("form", { onsubmit: async (e) => {
      e.preventDefault();
      if (!insurer.value.trim() || !member.value.trim() || !effective.value) { notice("Fill in the insurance company, member ID and effective date."); return; }
      const ok = await P.confirmDialog("Add this insurance card?", [["Insurance", `${insurer.value} ${plan.value}`], ["Member ID", h("span", { class: "member-id", text: member.value.trim().toUpperCase() })],
        ["Coverage", coverage.value === "primary" ? "Primary" : "Secondary"], ["Effective", dateText(effective.value)]], "Add card");
      if (!ok) return;
      const done = await submit(add, () => api("POST", "/insurance", { insurer: insurer.value, plan: plan.value, member_id: member.value, group_number: group.value,
        subscriber: subscriber.value, coverage: coverage.value, effective_from: effective.value }));
      if (done) { await route(); notice(says(done, "Card added."), "ok"); }
    } }, h("h2", { text: "Add an insurance card" }), field("Insurance company", "ins-insurer", insurer), field("Plan name", "ins-plan", plan),
      field("Member ID", "ins-member", member, "As printed on the front of the card"), field("Group number", "ins-group", group),
      field("Subscriber", "ins-subscriber", subscriber), field("Coverage", "ins-coverage", coverage), field("Effective date", "ins-effective", effective), add);
    show(heading("Insurance", link("/billing", "Billing", { class: "btn" })),
      h("div", { class: "split" }, h("section", { class: "panel" }, h("h2", { text: "Cards on file" }), cards.length ? h("div", { class: "ins-cards" }, cards) : h("p", { class: "empty-row", text: "No insurance on file. Add your card so we can bill your plan." })),
        h("section", { class: "panel" }, form)));
  }

  // ------------------------------------------------------------------ forms
  async function forms() {
    const data = await api("GET", "/forms");
    const todo = data.forms.filter((f) => f.status === "to_do");
    const done = data.forms.filter((f) => f.status !== "to_do");
    const item = (f) => h("li", { class: "form-item" }, h("div", { class: "grow" }, link(`/forms/${f.id}`, f.title), h("p", { class: "muted", text: f.description })),
      f.status === "to_do" ? pill("Due " + dateText(f.due_date), "pending") : pill("Submitted " + dateText(f.submitted_at), "ok"));
    show(heading("Forms"),
      h("section", { class: "panel" }, h("h2", { text: "To do" }), todo.length ? h("ul", { class: "plain" }, todo.map(item)) : h("p", { class: "empty-row", text: "You're all caught up." })),
      h("section", { class: "panel" }, h("h2", { text: "Completed" }), done.length ? h("ul", { class: "plain" }, done.map(item)) : h("p", { class: "empty-row", text: "No completed forms yet." })));
  }

  async function form() {
    const data = await api("GET", "/forms/" + body.dataset.form);
    const f = data.form;
    const controls = {};
    const fields = data.questions.map((q) => {
      if (q.kind === "choice") {
        const group = h("fieldset", { class: "choices" }, h("legend", { text: q.label + (q.required ? "" : " (optional)") }),
          q.options.map((o) => h("label", { class: "choice" }, h("input", { type: "radio", name: q.key, value: o, checked: f.answers[q.key] === o, disabled: f.status !== "to_do" }), " ", o)));
        controls[q.key] = () => { const on = group.querySelector("input:checked"); return on ? on.value : ""; };
        return group;
      }
      const input = q.kind === "long" ? h("textarea", { rows: "4" }) : h("input", { type: "text" });
      input.value = f.answers[q.key] || "";
      if (f.status !== "to_do") input.disabled = true;
      controls[q.key] = () => input.value;
      return field(q.label + (q.required ? "" : " (optional)"), "q-" + q.key, input);
    });
    const send = h("button", { type: "submit", class: "btn primary" }, "Submit form");
    show(h("p", {}, link("/forms", "← All forms")), h("section", { class: "panel narrow" },
      h("div", { class: "page-head" }, h("h1", { text: f.title }), f.status === "to_do" ? pill("Due " + dateText(f.due_date), "pending") : pill("Submitted", "ok")),
      h("p", { class: "muted", text: f.description }),
      h("form", { onsubmit: async (e) => {
        e.preventDefault();
        const answers = Object.fromEntries(Object.entries(controls).map(([k, read]) => [k, read()]));
        const ok = await P.confirmDialog("Submit this form?", [["Form", f.title], ["Signed", answers.signature || "—"]], "Submit");
        if (!ok) return;
        const done = await submit(send, () => api("POST", `/forms/${f.id}/submit`, { answers }));
        if (done) { await route(); notice(says(done, "Form submitted."), "ok"); }
      } }, fields, f.status === "to_do" ? send : null)));
  }

  // ------------------------------------------------------------------ sharing
  const ACCESS = { full: "Full access", appointments: "Appointments only", billing: "Billing only" };

  async function sharing() {
    const data = await api("GET", "/proxies");
    const rows = data.proxies.map((p) => {
      const access = select(Object.entries(ACCESS), p.access);
      access.setAttribute("aria-label", `Access for ${p.name}`);
      const live = p.status !== "revoked";
      return h("tr", { "data-proxy": p.id },
        h("td", {}, h("strong", { text: p.name }), h("div", { class: "muted", text: p.relationship })), h("td", { text: p.email }),
        h("td", { class: "dob", text: p.date_of_birth }),
        h("td", {}, live ? access : ACCESS[p.access]),
        h("td", {}, pill(p.status === "active" ? "Active" : p.status === "pending" ? "Invitation sent" : "Access removed", p.status === "active" ? "ok" : p.status === "pending" ? "pending" : "muted")),
        h("td", {}, live ? h("div", { class: "actions-row" },
          h("button", { type: "button", class: "btn small", "aria-label": `Save access for ${p.name}`, onclick: async (e) => {
            const done = await submit(e.currentTarget, () => api("POST", `/proxies/${p.id}/access`, { access: access.value }));
            if (done) { await route(); notice(says(done, "Access updated."), "ok"); }
          } }, "Save"),
          h("button", { type: "button", class: "btn small danger", "aria-label": `Remove access for ${p.name}`, onclick: async (e) => {
            const ok = await P.confirmDialog(`Remove ${p.name}'s access?`, [["Person", `${p.name} (${p.relationship})`], ["Access", ACCESS[p.access]]], "Remove access");
            if (!ok) return;
            const done = await submit(e.currentTarget, () => api("POST", `/proxies/${p.id}/revoke`));
            if (done) { await route(); notice(says(done, "Access removed."), "ok"); }
          } }, "Remove")) : null));
    });
    const name = h("input", { type: "text", maxlength: "80" });
    const relation = select(["Spouse", "Partner", "Parent", "Child", "Sibling", "Caregiver"].map((r) => [r, r]), "Spouse");
    const email = h("input", { type: "email", maxlength: "120" });
    const dob = h("input", { type: "text", class: "dob", placeholder: "YYYY-MM-DD", maxlength: "10", autocomplete: "off" });
    const access = select(Object.entries(ACCESS), "appointments");
    const invite = h("button", { type: "submit", class: "btn primary" }, "Review invitation");
    const form = h("form", { onsubmit: async (e) => {
      e.preventDefault();
      const ok = await P.confirmDialog("Send this invitation?", [["Name", name.value], ["Relationship", relation.value], ["Email", email.value], ["Access", ACCESS[access.value]]], "Send invitation");
      if (!ok) return;
      const done = await submit(invite, () => api("POST", "/proxies", { name: name.value, relationship: relation.value, email: email.value, date_of_birth: dob.value, access: access.value }));
      if (done) { await route(); notice(says(done, "Invitation sent."), "ok"); }
    } }, h("h2", { text: "Invite a family member" }), field("Full name", "proxy-name", name), field("Relationship", "proxy-relationship", relation),
      field("Email", "proxy-email", email), field("Their date of birth", "proxy-dob", dob, "YYYY-MM-DD, to verify their identity"), field("Access", "proxy-access", access), invite);
    show(heading("Share my record"),
      h("p", { class: "note", text: "People you invite get their own sign-in and see only what you allow. You can change or remove their access at any time." }),
      h("section", { class: "panel" }, h("h2", { text: "People with access" }), table(["Person", "Email", "Date of birth", "Access", "Status", ""], rows, "Nobody else has access to your record.", "People with access")),
      h("section", { class: "panel narrow" }, form));
  }

  async function profile() {
    const data = await api("GET", "/profile");
    const p = data.profile;
    show(heading("Personal information"), h("section", { class: "panel narrow" },
      h("dl", { class: "facts" }, h("dt", { text: "Name" }), h("dd", { text: p.full_name }),
        h("dt", { text: "Date of birth" }), h("dd", { class: "dob", text: p.date_of_birth }),
        h("dt", { text: "Medical record number" }), h("dd", { class: "mrn", text: p.mrn }),
        h("dt", { text: "Email" }), h("dd", { text: p.email }), h("dt", { text: "Phone" }), h("dd", { text: p.phone }),
        h("dt", { text: "Address" }), h("dd", { text: p.address }), h("dt", { text: "Preferred pharmacy" }), h("dd", { text: data.pharmacy_name })),
      h("p", { class: "note", text: "To correct your name or date of birth, bring a photo ID to your next visit." })));
  }

  const PAGES = { home, appointments, schedule, appointment, messages, compose, thread, medications, results, result, billing, insurance, forms, form, sharing, profile };

  async function header() {
    try {
      const me = await api("GET", "/me");
      document.getElementById("who").textContent = me.name;
      document.getElementById("who-initials").textContent = me.name.split(" ").map((w) => w[0]).join("");
      for (const [key, value] of [["messages", me.unread], ["forms", me.forms_due], ["results", me.new_results]]) {
        const badge = document.querySelector(`[data-count="${key}"]`);
        if (badge && value) { badge.textContent = value; badge.hidden = false; }
      }
    } catch (err) { /* the page itself reports errors */ }
  }

  async function route() {
    try { await PAGES[body.dataset.page](); } catch (err) { P.failPage(err); }
  }

  header();
  route();
})();
