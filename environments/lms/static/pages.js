/* Canopy's pages: one renderer per page name (`data-page` on <body>). */
(async function () {
  "use strict";
  const L = window.LMS;
  const { api, esc, when, day, time, status, plural } = L;
  const app = L.main;
  const body = document.body.dataset;
  const B = L.BASE;
  await L.ready;

  async function load(fn, text) {
    L.loading(app, text);
    try { await fn(); } catch (err) { L.errorPanel(app, err, () => load(fn, text)); }
  }
  function empty(text) { return `<div class="empty"><p>${esc(text)}</p></div>`; }
  function pager(page, pages, href) {
    if (pages <= 1) return "";
    const links = [];
    for (let n = 1; n <= pages; n++) links.push(n === page ? `<span aria-current="page">${n}</span>` : `<a href="${href(n)}">${n}</a>`);
    return `<nav class="pager" aria-label="Pages">${page > 1 ? `<a href="${href(page - 1)}" rel="prev">Previous</a>` : ""}${links.join("")}${page < pages ? `<a href="${href(page + 1)}" rel="next">Next</a>` : ""}</nav>`;
  }
  function score(s, points) { return s === null || s === undefined ? `<span class="muted">– / ${points}</span>` : `${s} / ${points}`; }
  function courseHead(course, title, current) {
    L.courseNav(course, current);
    L.crumbs([[course.code, `/courses/${course.id}`], [title]]);
  }
  async function write(button, fn) {
    try { return await L.busy(button, fn); } catch (err) { L.reportError(err); return null; }
  }

  const pages = {};

  pages.dashboard = async function () {
    const d = await api("GET", "/dashboard");
    L.crumbs([["Dashboard"]]);
    const cards = d.courses.map((c) => `<article class="course-card">
        <div class="band" style="background:${esc(c.color)}"></div>
        <div class="card-body"><h2><a href="${B}/courses/${esc(c.id)}">${esc(c.code)}: ${esc(c.title)}</a></h2>
        <div class="muted small">${esc(c.term)} · ${esc(c.instructor)}</div>
        <div class="card-foot"><span>${c.grade_percent === null ? "No grades yet" : `Grade ${c.grade_percent}%`}</span>
        ${c.unread_announcements ? `<a class="pill" href="${B}/courses/${esc(c.id)}/announcements">${plural(c.unread_announcements, "new announcement")}</a>` : ""}</div></div></article>`).join("");
    const todo = d.todo.length ? `<ul class="todo">${d.todo.map((t) => `<li><span class="tag">${esc(t.course_code)}</span>
        <a href="${B}/${t.kind === "quiz" ? "quizzes" : "assignments"}/${esc(t.id)}">${esc(t.title)}</a>
        <span class="small ${t.status === "overdue" ? "bad" : "muted"}">${t.status === "overdue" ? "Overdue · " : ""}Due ${when(t.due_at)} · ${t.points} pts</span></li>`).join("")}</ul>`
      : empty("Nothing due in the next two weeks.");
    const news = d.announcements.map((a) => `<li><a href="${B}/announcements/${esc(a.id)}">${esc(a.title)}</a><span class="small muted">${esc(a.course_code)} · ${day(a.posted_at)}</span></li>`).join("");
    app.innerHTML = `<div class="page-head"><h1>Dashboard</h1></div>
      <div class="dash"><section aria-label="Your courses" class="cards">${cards}</section>
      <aside class="side"><section class="panel"><h2>To do</h2>${todo}</section>
      <section class="panel"><h2>Recent announcements</h2><ul class="plain">${news}</ul></section></aside></div>`;
  };

  pages.courses = async function () {
    const d = await api("GET", "/courses");
    L.crumbs([["Courses"]]);
    const rows = (list) => list.map((c) => `<tr><td><span class="dot" style="background:${esc(c.color)}"></span><a href="${B}/courses/${esc(c.id)}">${esc(c.code)}: ${esc(c.title)}</a></td><td>${esc(c.term)}</td><td>${esc(c.instructor)}</td><td>${c.grade_percent === null ? "–" : c.grade_percent + "%"}</td></tr>`).join("");
    const head = `<thead><tr><th>Course</th><th>Term</th><th>Instructor</th><th>Grade</th></tr></thead>`;
    app.innerHTML = `<div class="page-head"><h1>All courses</h1></div>
      <section class="panel"><h2>Current enrolments</h2><table>${head}<tbody>${rows(d.courses.filter((c) => c.current))}</tbody></table></section>
      <section class="panel"><h2>Past enrolments</h2><table>${head}<tbody>${rows(d.courses.filter((c) => !c.current))}</tbody></table></section>`;
  };

  const ICONS = { page: "Page", file: "File", assignment: "Assignment", quiz: "Quiz", discussion: "Discussion" };
  function itemHref(item) {
    if (item.kind === "assignment") return `${B}/assignments/${item.ref_id}`;
    if (item.kind === "quiz") return `${B}/quizzes/${item.ref_id}`;
    if (item.kind === "discussion") return `${B}/discussions/${item.ref_id}`;
    return `${B}/items/${item.id}`;
  }

  pages.modules = async function () {
    const d = await api("GET", `/courses/${body.course}`);
    courseHead(d.course, "Modules", "");
    const pct = d.progress_total ? Math.round(100 * d.progress_done / d.progress_total) : 0;
    const modules = d.modules.map((m) => `<section class="module${m.locked ? " locked" : ""}" aria-label="${esc(m.module.title)}">
        <h2>${esc(m.module.title)}${m.locked ? ` <span class="small muted">Locked until ${day(m.module.unlock_at)}</span>` : ""}</h2>
        <ul>${m.items.map((i) => `<li><span class="kind">${ICONS[i.kind] || ""}</span>
          ${m.locked ? `<span>${esc(i.title)}</span>` : `<a href="${itemHref(i)}">${esc(i.title)}</a>`}
          ${m.locked ? "" : `<button type="button" class="check${i.completed ? " done" : ""}" data-item="${esc(i.id)}" data-done="${i.completed}" aria-pressed="${i.completed}" aria-label="Mark ${esc(i.title)} as done">${i.completed ? "✓ Done" : "Mark done"}</button>`}</li>`).join("")}</ul></section>`).join("");
    app.innerHTML = `<div class="course-banner" style="border-color:${esc(d.course.color)}"><h1>${esc(d.course.code)}: ${esc(d.course.title)}</h1>
        <p>${esc(d.course.description)}</p><p class="small muted staff">Instructor: ${esc(d.instructor.name)}${d.ta ? ` · Teaching assistant: ${esc(d.ta.name)}` : ""} · ${esc(d.course.term)}</p>
        <div class="progress" role="img" aria-label="Course progress ${pct}%"><span style="width:${pct}%"></span></div>
        <p class="small">${d.progress_done} of ${d.progress_total} items done</p></div>${modules}`;
    app.querySelectorAll("button.check").forEach((button) => button.addEventListener("click", async () => {
      const done = button.dataset.done !== "true";
      const answer = await write(button, () => api("POST", `/items/${button.dataset.item}/complete`, { done }));
      if (answer) { L.toast(answer.toast, "success"); load(pages.modules); }
    }));
  };

  pages.item = async function () {
    const d = await api("GET", `/items/${body.entity}`);
    courseHead(d.course, d.item.title, "");
    const content = d.item.kind === "file"
      ? `<div class="file-box">${esc(d.item.title)} <span class="muted small">PDF · 2.4 MB</span></div>`
      : `<div class="prose">${esc(d.item.body).replace(/\n/g, "<br>")}</div>`;
    app.innerHTML = `<div class="page-head"><h1>${esc(d.item.title)}</h1></div><p class="small muted">${esc(d.module.title)}</p>
      <section class="panel">${content}</section>
      <div class="row"><button type="button" class="btn${d.item.completed ? "" : " btn-primary"}" id="done">${d.item.completed ? "✓ Done (undo)" : "Mark as done"}</button>
      <span class="spacer"></span>${d.prev_id ? `<a class="btn" href="${B}/items/${d.prev_id}">‹ Previous</a>` : ""}${d.next_id ? `<a class="btn" href="${B}/items/${d.next_id}">Next ›</a>` : ""}</div>`;
    document.getElementById("done").addEventListener("click", async (event) => {
      const answer = await write(event.currentTarget, () => api("POST", `/items/${d.item.id}/complete`, { done: !d.item.completed }));
      if (answer) { L.toast(answer.toast, "success"); load(pages.item); }
    });
  };

  pages.announcements = async function () {
    const page = parseInt(L.params().get("page") || "1", 10);
    const d = await api("GET", `/courses/${body.course}/announcements?page=${page}`);
    courseHead(d.course, "Announcements", "announcements");
    const list = d.items.map((a) => `<article class="announcement${a.read ? "" : " unread"}"><h2><a href="${B}/announcements/${esc(a.id)}">${esc(a.title)}</a>${a.read ? "" : ' <span class="pill">New</span>'}</h2>
      <div class="small muted">${esc(a.author_name)} · ${when(a.posted_at)}</div><p>${esc(a.body)}</p></article>`).join("");
    app.innerHTML = `<div class="page-head"><h1>Announcements</h1><span class="muted">${plural(d.total, "announcement")}</span></div>
      ${list || empty("Your instructor hasn't posted any announcements yet.")}
      ${pager(d.page, d.pages, (n) => `${B}/courses/${d.course.id}/announcements?page=${n}`)}`;
  };

  pages.announcement = async function () {
    const d = await api("GET", `/announcements/${body.entity}`);
    courseHead(d.course, d.announcement.title, "announcements");
    app.innerHTML = `<article class="panel"><h1>${esc(d.announcement.title)}</h1><div class="small muted">${esc(d.announcement.author_name)} · ${when(d.announcement.posted_at)}</div>
      <div class="prose"><p>${esc(d.announcement.body)}</p></div></article><a href="${B}/courses/${d.course.id}/announcements">‹ All announcements</a>`;
  };

  pages.assignments = async function () {
    const d = await api("GET", `/courses/${body.course}/assignments`);
    courseHead(d.course, "Assignments", "assignments");
    app.innerHTML = `<div class="page-head"><h1>Assignments</h1></div>` + (d.groups.map((g) => `<section class="panel"><h2>${esc(g.name)}</h2>
      <table><thead><tr><th>Assignment</th><th>Due</th><th>Status</th><th>Score</th></tr></thead><tbody>
      ${g.rows.map((r) => `<tr><td><a href="${B}/assignments/${esc(r.id)}">${esc(r.title)}</a></td><td>${when(r.due_at)}</td><td>${status(r.status)}</td><td>${score(r.score, r.points)}</td></tr>`).join("")}
      </tbody></table></section>`).join("") || empty("No assignments have been published in this course."));
  };

  function submissionCard(s, asg) {
    const rubric = s.rubric_scores.length ? `<table class="rubric-scores"><thead><tr><th>Criterion</th><th>Points</th></tr></thead><tbody>${s.rubric_scores.map((r) => {
      const max = (asg.rubric.find((c) => c.name === r.criterion) || { points: "?" }).points;
      return `<tr><td>${esc(r.criterion)}</td><td>${r.points} / ${max}</td></tr>`;
    }).join("")}</tbody></table>` : "";
    return `<article class="submission" aria-label="Attempt ${s.attempt}"><h3>Attempt ${s.attempt} <span class="small muted">submitted ${when(s.submitted_at)}${s.late ? ' · <span class="bad">late</span>' : ""}</span></h3>
      ${s.file_name ? `<div class="file-box"><span class="file-name">${esc(s.file_name)}</span></div>` : ""}
      ${s.body ? `<div class="prose submitted-text">${esc(s.body).replace(/\n/g, "<br>")}</div>` : ""}
      ${s.comment ? `<p class="small">Comment: ${esc(s.comment)}</p>` : ""}
      ${s.score === null ? `<p class="small muted">Not graded yet.</p>` : `<p><strong>Score: ${s.score} / ${asg.points}</strong></p>${rubric}${s.feedback ? `<p class="feedback">“${esc(s.feedback)}”</p>` : ""}`}</article>`;
  }

  pages.assignment = async function () {
    const d = await api("GET", `/assignments/${body.entity}`);
    const a = d.assignment;
    courseHead(d.course, a.title, "assignments");
    const canSubmit = !d.locked && d.attempts_left > 0;
    const accepts = a.submission_types.map((t) => (t === "text" ? "a text entry" : "a file upload")).join(" or ");
    const form = canSubmit ? `<section class="panel"><h2>${d.submissions.length ? "Submit again" : "Submit assignment"}</h2>
      <form id="submit-form">
      ${a.submission_types.includes("text") ? `<label for="sub-text">Text entry</label><textarea id="sub-text" rows="6"></textarea>` : ""}
      ${a.submission_types.includes("file") ? `<label for="sub-file">Attach a file</label><input id="sub-file" type="file" accept=".pdf,.docx,.txt,.py,.zip">` : ""}
      <label for="sub-comment">Comment for your instructor (optional)</label><input id="sub-comment" type="text">
      <div class="row"><button class="btn btn-primary" type="submit">Submit assignment</button><span class="small muted">${plural(d.attempts_left, "attempt")} left</span></div></form></section>`
      : `<div class="alert info" role="status">${d.locked ? "This assignment is locked: submissions are closed." : "You have used all your attempts for this assignment."}</div>`;
    app.innerHTML = `<div class="page-head"><h1>${esc(a.title)}</h1>${status(d.status)}</div>
      <dl class="facts"><div><dt>Due</dt><dd>${when(a.due_at)}</dd></div><div><dt>Points</dt><dd>${a.points}</dd></div>
      <div><dt>Submitting</dt><dd>${esc(accepts)}</dd></div><div><dt>Attempts</dt><dd>${a.allowed_attempts}</dd></div>
      ${a.lock_at ? `<div><dt>Available until</dt><dd>${when(a.lock_at)}</dd></div>` : ""}</dl>
      <section class="panel prose"><p>${esc(a.description)}</p></section>
      <section class="panel"><h2>Rubric</h2><table class="rubric"><thead><tr><th>Criterion</th><th>Description</th><th>Points</th></tr></thead>
      <tbody>${a.rubric.map((c) => `<tr><td>${esc(c.name)}</td><td>${esc(c.description)}</td><td>${c.points}</td></tr>`).join("")}</tbody></table></section>
      <section class="panel"><h2>Your submissions</h2>${d.submissions.slice().reverse().map((s) => submissionCard(s, a)).join("") || empty("You haven't submitted anything yet.")}</section>${form}`;
    const formEl = document.getElementById("submit-form");
    if (!formEl) return;
    formEl.addEventListener("submit", async (event) => {
      event.preventDefault();
      const text = document.getElementById("sub-text");
      const file = document.getElementById("sub-file");
      const payload = {
        body: text ? text.value : "",
        file_name: file && file.files.length ? file.files[0].name : "",
        comment: document.getElementById("sub-comment").value,
      };
      if (!payload.body.trim() && !payload.file_name) { L.toast("Write your answer or attach a file before submitting.", "error"); return; }
      const summary = `<p>You are submitting attempt ${d.submissions.length + 1} of ${a.allowed_attempts} for <strong>${esc(a.title)}</strong>.</p>
        ${payload.file_name ? `<p>File: <strong>${esc(payload.file_name)}</strong></p>` : ""}${payload.body.trim() ? `<p>Text entry: ${plural(payload.body.trim().split(/\s+/).length, "word")}</p>` : ""}
        <p class="small muted">You can't change a submission once it's sent.</p>`;
      if (!(await L.confirmDialog({ title: "Submit this assignment?", html: summary, confirm: "Submit" }))) return;
      const answer = await write(formEl.querySelector("button[type=submit]"), () => api("POST", `/assignments/${a.id}/submissions`, payload));
      if (answer) { L.toast(answer.toast, "success"); load(pages.assignment); }
    });
  };

  pages.quizzes = async function () {
    const d = await api("GET", `/courses/${body.course}/quizzes`);
    courseHead(d.course, "Quizzes", "quizzes");
    app.innerHTML = `<div class="page-head"><h1>Quizzes</h1></div><section class="panel">` + (d.quizzes.length ? `<table><thead><tr><th>Quiz</th><th>Due</th><th>Time limit</th><th>Attempts</th><th>Best score</th></tr></thead><tbody>
      ${d.quizzes.map((q) => `<tr><td><a href="${B}/quizzes/${esc(q.id)}">${esc(q.title)}</a>${q.in_progress_id ? ' <span class="pill">In progress</span>' : ""}</td><td>${when(q.due_at)}${q.closed ? ' <span class="small muted">(closed)</span>' : ""}</td><td>${q.time_limit_minutes} min</td><td>${q.attempts_used} of ${q.allowed_attempts}</td><td>${score(q.best_score, q.points)}</td></tr>`).join("")}</tbody></table>`
      : empty("No quizzes yet.")) + `</section>`;
  };

  pages.quiz = async function () {
    const d = await api("GET", `/quizzes/${body.entity}`);
    const q = d.quiz;
    courseHead(d.course, q.title, "quizzes");
    const left = q.allowed_attempts - q.attempts_used;
    let action = "";
    if (q.in_progress_id) action = `<a class="btn btn-primary" href="${B}/attempts/${esc(q.in_progress_id)}">Resume quiz</a>`;
    else if (q.closed) action = `<div class="alert info" role="status">This quiz closed on ${when(q.due_at)}.</div>`;
    else if (left > 0) action = `<button class="btn btn-primary" type="button" id="start">${q.attempts_used ? "Retake quiz" : "Start quiz"}</button>`;
    else action = `<div class="alert info" role="status">You have used all your attempts.</div>`;
    app.innerHTML = `<div class="page-head"><h1>${esc(q.title)}</h1></div>
      <dl class="facts"><div><dt>Due</dt><dd>${when(q.due_at)}</dd></div><div><dt>Points</dt><dd>${q.points}</dd></div><div><dt>Questions</dt><dd>${q.question_count}</dd></div>
      <div><dt>Time limit</dt><dd>${q.time_limit_minutes} minutes</dd></div><div><dt>Allowed attempts</dt><dd>${q.allowed_attempts}</dd></div></dl>
      <section class="panel prose"><p>${esc(q.description)}</p></section>
      <section class="panel"><h2>Your attempts</h2>${d.attempts.length ? `<table><thead><tr><th>Attempt</th><th>Started</th><th>Status</th><th>Score</th></tr></thead><tbody>
        ${d.attempts.map((t) => `<tr><td><a href="${B}/attempts/${esc(t.id)}">Attempt ${t.attempt}</a></td><td>${when(t.started_at)}</td><td>${status(t.status)}</td><td>${score(t.score, q.points)}</td></tr>`).join("")}</tbody></table>` : empty("You haven't taken this quiz yet.")}</section>
      <div class="row">${action}</div>`;
    const start = document.getElementById("start");
    if (start) start.addEventListener("click", async () => {
      const ok = await L.confirmDialog({ title: "Start the quiz?", html: `<p>You will have <strong>${q.time_limit_minutes} minutes</strong> once you start. The timer keeps running if you leave the page.</p><p>This is attempt ${q.attempts_used + 1} of ${q.allowed_attempts}.</p>`, confirm: "Start quiz" });
      if (!ok) return;
      const answer = await write(start, () => api("POST", `/quizzes/${q.id}/attempts`));
      if (answer) location.href = `${B}/attempts/${answer.attempt.id}`;
    });
  };

  pages.attempt = async function () {
    const d = await api("GET", `/attempts/${body.entity}`);
    const t = d.attempt;
    courseHead(d.course, d.quiz.title, "quizzes");
    const closed = t.status !== "in_progress";
    const questions = d.questions.map((q, n) => `<fieldset class="question${closed ? (q.correct ? " right" : " wrong") : ""}" data-question="${esc(q.id)}">
      <legend>${esc(q.prompt)} <span class="small muted">(${plural(q.points, "point")})</span></legend>
      ${q.choices.map((c, i) => `<label class="choice"><input type="radio" name="q-${n}" value="${i}"${t.answers[q.id] === i ? " checked" : ""}${closed ? " disabled" : ""}> ${esc(c)}</label>`).join("")}
      ${closed ? `<div class="small ${q.correct ? "good" : "bad"}">${q.correct ? "Correct" : "Incorrect"}</div>` : `<div class="small muted saved" aria-live="polite">${q.id in t.answers ? "Saved" : ""}</div>`}</fieldset>`).join("");
    app.innerHTML = `<div class="page-head"><h1>${esc(d.quiz.title)}</h1><span class="muted">Attempt ${t.attempt}</span><span class="spacer"></span>
      ${closed ? status(t.status) : `<div class="timer" role="timer" aria-label="Time remaining" id="timer"></div>`}</div>
      ${closed ? `<div class="alert ${t.status === "timed_out" ? "warn" : "info"}" role="status">Score: <strong>${t.score} / ${d.quiz.points}</strong>${t.status === "timed_out" ? " · Time ran out; answers saved before the limit were graded." : ""}</div>` : ""}
      <form id="quiz-form">${questions}${closed ? "" : `<div class="row"><button class="btn btn-primary" type="submit">Submit quiz</button><span class="small muted">Answers are saved as you choose them.</span></div>`}</form>
      <p><a href="${B}/quizzes/${esc(d.quiz.id)}">‹ Back to the quiz</a></p>`;
    if (closed) return;
    const timer = document.getElementById("timer");
    const end = Date.now() + d.remaining_seconds * 1000;
    function tick() {
      const left = Math.max(0, Math.round((end - Date.now()) / 1000));
      timer.textContent = `${Math.floor(left / 60)}:${L.two(left % 60)} left`;
      timer.classList.toggle("low", left < 60);
      if (left > 0) setTimeout(tick, 1000);
    }
    tick();
    app.querySelectorAll("fieldset.question").forEach((set) => set.addEventListener("change", async (event) => {
      const saved = set.querySelector(".saved");
      saved.textContent = "Saving…";
      try {
        await api("PUT", `/attempts/${t.id}/answers`, { question_id: set.dataset.question, choice: parseInt(event.target.value, 10) });
        saved.textContent = "Saved";
      } catch (err) {
        saved.textContent = "Not saved";
        L.reportError(err, () => set.dispatchEvent(new Event("change")));
        if (err.status === 409) setTimeout(() => load(pages.attempt), 1500);
      }
    }));
    document.getElementById("quiz-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const answered = app.querySelectorAll("fieldset.question input:checked").length;
      const ok = await L.confirmDialog({ title: "Submit your quiz?", html: `<p>You answered ${answered} of ${d.questions.length} questions.</p>${answered < d.questions.length ? '<p class="bad">Unanswered questions score zero.</p>' : ""}<p class="small muted">You can't change your answers after submitting.</p>`, confirm: "Submit quiz" });
      if (!ok) return;
      const answer = await write(event.submitter || app.querySelector("#quiz-form button[type=submit]"), () => api("POST", `/attempts/${t.id}/submit`));
      if (answer) { L.toast(answer.toast, "success"); load(pages.attempt); }
    });
  };

  pages.grades = async function () {
    const d = await api("GET", `/courses/${body.course}/grades`);
    courseHead(d.course, "Grades", "grades");
    app.innerHTML = `<div class="page-head"><h1>Grades</h1><span class="spacer"></span><div class="total">Total: <strong>${d.percent === null ? "–" : d.percent + "%"}</strong> <span class="muted small">(${d.earned} / ${d.possible} points)</span></div></div>
      <section class="panel"><table><thead><tr><th>Name</th><th>Group</th><th>Due</th><th>Status</th><th>Score</th></tr></thead><tbody>
      ${d.rows.map((r) => `<tr><td><a href="${B}/${r.kind === "quiz" ? "quizzes" : "assignments"}/${esc(r.id)}">${esc(r.title)}</a></td><td>${esc(r.group)}</td><td>${when(r.due_at)}</td><td>${status(r.status)}</td><td>${score(r.score, r.points)}</td></tr>`).join("")}
      </tbody></table></section>`;
  };

  pages["all-grades"] = async function () {
    const d = await api("GET", "/courses");
    L.crumbs([["Grades"]]);
    app.innerHTML = `<div class="page-head"><h1>Grades</h1></div><section class="panel"><table><thead><tr><th>Course</th><th>Term</th><th>Current grade</th></tr></thead><tbody>
      ${d.courses.map((c) => `<tr><td><a href="${B}/courses/${esc(c.id)}/grades">${esc(c.code)}: ${esc(c.title)}</a></td><td>${esc(c.term)}</td><td>${c.grade_percent === null ? "–" : c.grade_percent + "%"}</td></tr>`).join("")}</tbody></table></section>`;
  };

  pages.discussions = async function () {
    const d = await api("GET", `/courses/${body.course}/discussions`);
    courseHead(d.course, "Discussions", "discussions");
    app.innerHTML = `<div class="page-head"><h1>Discussions</h1></div><section class="panel">` + (d.discussions.length ? `<table><thead><tr><th>Topic</th><th>Started by</th><th>Replies</th><th>Last reply</th></tr></thead><tbody>
      ${d.discussions.map((t) => `<tr><td>${t.pinned ? '<span class="pill">Pinned</span> ' : ""}<a href="${B}/discussions/${esc(t.id)}">${esc(t.title)}</a></td><td>${esc(t.author_name)}</td><td>${t.reply_count}</td><td>${t.last_reply_at ? when(t.last_reply_at) : "–"}</td></tr>`).join("")}</tbody></table>`
      : empty("No discussions yet.")) + `</section>`;
  };

  pages.discussion = async function () {
    const d = await api("GET", `/discussions/${body.entity}`);
    courseHead(d.course, d.discussion.title, "discussions");
    const children = {};
    d.replies.forEach((r) => { (children[r.parent_id || ""] = children[r.parent_id || ""] || []).push(r); });
    function thread(parent) {
      return (children[parent] || []).map((r) => `<article class="reply" aria-label="Reply by ${esc(r.author_name)}"><div class="reply-head"><span class="avatar small" aria-hidden="true">${esc(L.initials(r.author_name))}</span><strong>${esc(r.author_name)}</strong><span class="small muted">${when(r.created_at)}</span></div>
        <p>${esc(r.body)}</p>${d.discussion.locked ? "" : `<button type="button" class="link" data-reply-to="${esc(r.id)}" aria-label="Reply to ${esc(r.author_name)}">Reply</button>`}
        <div class="children">${thread(r.id)}</div></article>`).join("");
    }
    app.innerHTML = `<article class="panel topic"><h1>${esc(d.discussion.title)}</h1><div class="small muted">${esc(d.author_name)} · ${when(d.discussion.created_at)}</div><p>${esc(d.discussion.body)}</p></article>
      <section class="panel"><h2>${plural(d.replies.length, "reply", "replies")}</h2>${thread("") || empty("No replies yet. Start the conversation.")}</section>
      ${d.discussion.locked ? `<div class="alert info">This discussion is closed.</div>` : `<section class="panel"><h2 id="reply-heading">Write a reply</h2><form id="reply-form"><div id="replying-to" class="small muted"></div>
      <label for="reply-body">Your reply</label><textarea id="reply-body" rows="4"></textarea><div class="row"><button class="btn btn-primary" type="submit">Post reply</button></div></form></section>`}`;
    let parent = null;
    app.querySelectorAll("[data-reply-to]").forEach((button) => button.addEventListener("click", () => {
      parent = button.dataset.replyTo;
      const who = d.replies.find((r) => r.id === parent);
      document.getElementById("replying-to").innerHTML = `Replying to ${esc(who.author_name)} · <button type="button" class="link" id="cancel-parent">cancel</button>`;
      document.getElementById("cancel-parent").addEventListener("click", () => { parent = null; document.getElementById("replying-to").textContent = ""; });
      document.getElementById("reply-body").focus();
    }));
    const form = document.getElementById("reply-form");
    if (form) form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const text = document.getElementById("reply-body").value;
      const answer = await write(form.querySelector("button[type=submit]"), () => api("POST", `/discussions/${d.discussion.id}/replies`, { body: text, parent_id: parent }));
      if (answer) { L.toast(answer.toast, "success"); load(pages.discussion); }
    });
  };

  pages.calendar = async function () {
    const month = L.params().get("month") || "";
    const d = await api("GET", `/calendar${month ? "?month=" + encodeURIComponent(month) : ""}`);
    L.crumbs([["Calendar"]]);
    const me = await L.ready;
    const [y, m] = d.month.split("-").map(Number);
    const first = new Date(Date.UTC(y, m - 1, 1));
    const offset = (first.getUTCDay() + 6) % 7;
    const daysIn = new Date(Date.UTC(y, m, 0)).getUTCDate();
    const shift = (n) => { const t = new Date(Date.UTC(y, m - 1 + n, 1)); return `${t.getUTCFullYear()}-${L.two(t.getUTCMonth() + 1)}`; };
    const byDay = {};
    d.entries.forEach((e) => { (byDay[e.starts_at.slice(0, 10)] = byDay[e.starts_at.slice(0, 10)] || []).push(e); });
    let cells = "";
    for (let i = 0; i < offset; i++) cells += `<div class="cell blank"></div>`;
    for (let n = 1; n <= daysIn; n++) {
      const iso = `${d.month}-${L.two(n)}`;
      const list = byDay[iso] || [];
      const today = me && me.today === iso;
      cells += `<div class="cell${today ? " today" : ""}"><button type="button" class="daynum" data-day="${iso}" aria-label="${day(iso + "T00:00:00Z")}">${n}</button>
        ${list.slice(0, 3).map((e) => `<div class="chip ${esc(e.kind)}" style="border-color:${esc(e.color)}" title="${esc(e.title)}">${e.kind === "assignment" || e.kind === "quiz" ? "Due: " : time(e.starts_at) + " "}${esc(e.title)}</div>`).join("")}
        ${list.length > 3 ? `<div class="small muted more">+${list.length - 3} more</div>` : ""}</div>`;
    }
    const trailing = (7 - ((offset + daysIn) % 7)) % 7;
    for (let i = 0; i < trailing; i++) cells += `<div class="cell blank"></div>`;
    const selected = L.params().get("day") || (me && me.today.startsWith(d.month) ? me.today : `${d.month}-01`);
    function agenda(iso) {
      const list = byDay[iso] || [];
      return `<h2>${day(iso + "T00:00:00Z")}</h2>` + (list.length ? `<ul class="agenda">${list.map((e) => `<li><span class="dot" style="background:${esc(e.color)}"></span>
        <div><div>${e.link ? `<a href="${B}${e.link}">${esc(e.title)}</a>` : esc(e.title)}</div><div class="small muted">${e.kind === "assignment" || e.kind === "quiz" ? "Due " + time(e.starts_at) : time(e.starts_at) + "–" + time(e.ends_at)}${e.location ? " · " + esc(e.location) : ""}${e.course_code ? " · " + esc(e.course_code) : ""}</div></div>
        ${e.kind === "personal" ? `<button type="button" class="link bad" data-delete="${esc(e.id)}" aria-label="Delete ${esc(e.title)}">Delete</button>` : ""}</li>`).join("")}</ul>` : empty("Nothing scheduled."));
    }
    app.innerHTML = `<div class="page-head"><h1>${L.MONTHS[m - 1]} ${y}</h1><span class="spacer"></span>
        <a class="btn" href="${B}/calendar?month=${shift(-1)}" aria-label="Previous month">‹</a><a class="btn" href="${B}/calendar">Today</a><a class="btn" href="${B}/calendar?month=${shift(1)}" aria-label="Next month">›</a></div>
      <div class="cal-wrap"><div><div class="cal-head">${["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((n) => `<div>${n}</div>`).join("")}</div><div class="cal">${cells}</div></div>
      <aside class="side"><section class="panel" id="agenda">${agenda(selected)}</section>
      <section class="panel"><h2>Add an event</h2><form id="event-form">
        <label for="ev-title">Title</label><input id="ev-title" type="text" required>
        <label for="ev-date">Date</label><input id="ev-date" type="date" value="${selected}" required>
        <div class="two"><div><label for="ev-start">Starts</label><input id="ev-start" type="time" value="18:00" required></div><div><label for="ev-end">Ends</label><input id="ev-end" type="time" value="19:00" required></div></div>
        <label for="ev-location">Location</label><input id="ev-location" type="text">
        <label for="ev-course">Course (optional)</label><select id="ev-course"><option value="">None (personal)</option>${d.courses.map((c) => `<option value="${esc(c.id)}">${esc(c.code)}</option>`).join("")}</select>
        <div class="row"><button class="btn btn-primary" type="submit">Add event</button></div></form></section></aside></div>`;
    function bindAgenda() {
      app.querySelectorAll("[data-delete]").forEach((button) => button.addEventListener("click", async () => {
        if (!(await L.confirmDialog({ title: "Delete this event?", html: `<p>${esc(button.getAttribute("aria-label").slice(7))} will be removed from your calendar.</p>`, confirm: "Delete", danger: true }))) return;
        const answer = await write(button, () => api("DELETE", `/calendar/events/${button.dataset.delete}`));
        if (answer) { L.toast(answer.toast, "success"); load(pages.calendar); }
      }));
    }
    bindAgenda();
    app.querySelectorAll("[data-day]").forEach((button) => button.addEventListener("click", () => {
      document.getElementById("agenda").innerHTML = agenda(button.dataset.day);
      document.getElementById("ev-date").value = button.dataset.day;
      bindAgenda();
    }));
    const form = document.getElementById("event-form");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const v = (id) => document.getElementById(id).value;
      const answer = await write(form.querySelector("button[type=submit]"), () => api("POST", "/calendar/events", {
        title: v("ev-title"), date: v("ev-date"), start: v("ev-start"), end: v("ev-end"), location: v("ev-location"), course_id: v("ev-course") || null,
      }));
      if (answer) { L.toast(answer.toast, "success"); history.replaceState(null, "", `${B}/calendar?month=${v("ev-date").slice(0, 7)}&day=${v("ev-date")}`); load(pages.calendar); }
    });
  };

  pages.inbox = async function () {
    const folder = L.params().get("folder") || "inbox";
    const page = parseInt(L.params().get("page") || "1", 10);
    const d = await api("GET", `/inbox?folder=${encodeURIComponent(folder)}&page=${page}`);
    L.crumbs([["Inbox"]]);
    const names = { inbox: "Inbox", unread: "Unread", sent: "Sent", archived: "Archived" };
    const rows = d.conversations.map((c) => `<a class="conv${c.unread ? " unread" : ""}" href="${B}/inbox/${esc(c.id)}"><span class="avatar" aria-hidden="true">${esc(L.initials(c.with_names[0] || "?"))}</span>
      <span class="conv-main"><span class="conv-top"><strong>${esc(c.with_names.join(", "))}</strong><span class="small muted">${when(c.last_at)}</span></span>
      <span class="conv-subject">${esc(c.subject)}${c.count > 1 ? ` <span class="muted small">(${c.count})</span>` : ""}${c.course_code ? ` <span class="tag">${esc(c.course_code)}</span>` : ""}</span>
      <span class="small muted">${esc(c.preview)}</span></span></a>`).join("");
    app.innerHTML = `<div class="page-head"><h1>Inbox</h1><span class="spacer"></span><button class="btn btn-primary" type="button" id="compose" aria-haspopup="dialog">Compose</button></div>
      <nav class="tabs" aria-label="Folders">${Object.keys(names).map((k) => `<a href="${B}/inbox?folder=${k}"${k === d.folder ? ' aria-current="page"' : ""}>${names[k]}</a>`).join("")}</nav>
      <section class="panel conv-list">${rows || empty(d.folder === "unread" ? "You're all caught up." : "No conversations here.")}</section>
      ${pager(d.page, d.pages, (n) => `${B}/inbox?folder=${d.folder}&page=${n}`)}`;
    document.getElementById("compose").addEventListener("click", compose);
  };

  async function compose() {
    const courses = (await api("GET", "/courses")).courses.filter((c) => c.current);
    const dialog = document.createElement("dialog");
    dialog.className = "modal wide";
    dialog.setAttribute("aria-labelledby", "compose-title");
    dialog.innerHTML = `<h2 id="compose-title">New message</h2><form id="compose-form">
      <label for="msg-course">Course</label><select id="msg-course"><option value="">Select a course</option>${courses.map((c) => `<option value="${esc(c.id)}">${esc(c.code)}: ${esc(c.title)}</option>`).join("")}</select>
      <label for="msg-to">To</label><select id="msg-to" disabled${L.ui("autocomplete") === "type-ahead" ? " data-native" : ""}><option value="">Select a course first</option></select>
      <label for="msg-subject">Subject</label><input id="msg-subject" type="text">
      <label for="msg-body">Message</label><textarea id="msg-body" rows="6"></textarea>
      <div class="actions"><button class="btn" type="button" data-no>Cancel</button><button class="btn btn-primary" type="submit">Send</button></div></form>`;
    document.body.appendChild(dialog);
    dialog.showModal();
    const to = dialog.querySelector("#msg-to");
    if (L.ui("autocomplete") === "type-ahead") L.typeAhead(to);
    dialog.querySelector("#msg-course").addEventListener("change", async (event) => {
      const id = event.target.value;
      to.disabled = true;
      if (!id) return;
      const people = (await api("GET", `/people?course_id=${encodeURIComponent(id)}`)).people;
      to.innerHTML = `<option value="">Choose a person</option>` + people.map((p) => `<option value="${esc(p.id)}">${esc(p.name)} (${esc(p.role)})</option>`).join("");
      to.disabled = false;
    });
    dialog.querySelector("[data-no]").addEventListener("click", () => dialog.remove());
    dialog.querySelector("form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const payload = { recipient_ids: to.value ? [to.value] : [], course_id: dialog.querySelector("#msg-course").value || null,
        subject: dialog.querySelector("#msg-subject").value, body: dialog.querySelector("#msg-body").value };
      const answer = await write(event.submitter, () => api("POST", "/conversations", payload));
      if (answer) { dialog.remove(); L.toast(answer.toast, "success"); location.href = `${B}/inbox/${answer.conversation.id}`; }
    });
  }

  pages.conversation = async function () {
    const d = await api("GET", `/conversations/${body.conversation}`);
    L.crumbs([["Inbox", "/inbox"], [d.conversation.subject]]);
    app.innerHTML = `<div class="page-head"><h1>${esc(d.conversation.subject)}</h1>${d.course_code ? `<span class="tag">${esc(d.course_code)}</span>` : ""}<span class="spacer"></span>
      ${d.conversation.archived ? '<span class="muted">Archived</span>' : `<button type="button" class="btn" id="archive">Archive</button>`}</div>
      <p class="small muted">With ${esc(d.participants.map((p) => `${p.name} (${p.role})`).join(", "))}</p>
      ${d.messages.map((msg) => `<article class="message panel"><div class="reply-head"><span class="avatar small" aria-hidden="true">${esc(L.initials(msg.author_name))}</span><strong>${esc(msg.author_name)}</strong><span class="small muted">${when(msg.sent_at)}</span></div><p>${esc(msg.body)}</p></article>`).join("")}
      <section class="panel"><form id="reply-form"><label for="reply-body">Reply</label><textarea id="reply-body" rows="4"></textarea><div class="row"><button class="btn btn-primary" type="submit">Send reply</button></div></form></section>`;
    const archive = document.getElementById("archive");
    if (archive) archive.addEventListener("click", async () => {
      const answer = await write(archive, () => api("POST", `/conversations/${d.conversation.id}/archive`));
      if (answer) { L.toast(answer.toast, "success"); load(pages.conversation); }
    });
    const form = document.getElementById("reply-form");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const answer = await write(form.querySelector("button[type=submit]"), () => api("POST", `/conversations/${d.conversation.id}/messages`, { body: document.getElementById("reply-body").value }));
      if (answer) { L.toast(answer.toast, "success"); load(pages.conversation); }
    });
  };

  pages.missing = async function () {
    L.crumbs([["Page not found"]]);
    app.innerHTML = `<div class="panel empty"><h1>Page not found</h1><p>The page you were looking for doesn't exist. <a href="${B}/">Go to your dashboard</a>.</p></div>`;
  };

  // UI profile tabs=tablist: a course tab shows its section here (canopy.js courseTabs).
  document.addEventListener("canopy:section", (event) => load(pages[event.detail] || pages.missing));

  const render = pages[L.page] || pages.missing;
  load(render);
})();
