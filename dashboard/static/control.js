// The control tab: reading countdown, live status, the website tab's presence, Evaluate and Abandon.
// The website tab was opened by the Start click (dashboard/static/start.js) on the environments'
// own host name; this tab never holds a reference to it. The server tells it "go" when the
// countdown is over here, and "ended" when the attempt ends.
(function () {
  "use strict";
  var root = document.getElementById("control");
  if (!root) return;
  var d = root.dataset;
  var assignmentId = d.assignment;
  var attemptId = d.attempt;
  var state = d.state;
  var csrf = d.csrf;
  var grace = parseInt(d.grace, 10) || 10;
  var leaving = false; // a navigation this page started itself: no beforeunload question
  var ending = false;

  function $(id) { return document.getElementById(id); }

  // The server briefly away (its database restarting: 503; a process restarting behind the proxy:
  // 502, 504, no answer): send again after these pauses, about 20 s in all, then say so. Every
  // request sent here is safe to repeat (a second Evaluate returns the first one's result).
  var RETRY_DELAYS_MS = [500, 1000, 2000, 4000, 4000, 4000, 4000];
  var UNREACHABLE = "The server cannot be reached right now. Nothing was lost: try again in a moment.";

  function post(url, body, tries) {
    tries = tries || 0;
    var again = function () {
      if (tries >= RETRY_DELAYS_MS.length) throw new Error(UNREACHABLE);
      return new Promise(function (resolve) { setTimeout(resolve, RETRY_DELAYS_MS[tries]); })
        .then(function () { return post(url, body, tries + 1); });
    };
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf, "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body || {}).toString()
    }).then(function (response) {
      if (response.status === 502 || response.status === 503 || response.status === 504) return again();
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) { throw new Error(data.detail || ("The server answered " + response.status + ". Try again.")); }
        return data;
      });
    }, again);
  }

  // One reload at a time: after Start warm (or Evaluate) both the POST's answer and the live
  // channel's new state ask for it, and a second reload would cut the first one's navigation short.
  var reloading = false;
  function reload() {
    if (reloading) return;
    reloading = true;
    leaving = true;
    location.reload();
  }

  // Leaving this tab (a link, closing it) during the task discards the task: ask first.
  var active = state === "cold_active" || state === "warm_ready" || state === "warm_active";
  window.addEventListener("beforeunload", function (event) {
    if (!active || leaving) return;
    event.preventDefault();
    event.returnValue = "";
  });

  // ---------------------------------------------------------------- active attempt
  var startedAt = null; // client time of the clock's start (the first recorded event)
  var timer = null;

  function startClock(elapsedMs) {
    if (startedAt !== null) return;
    startedAt = Date.now() - elapsedMs;
    $("rec").classList.add("live");
    $("rec-label").textContent = "REC";
    tick();
    timer = setInterval(tick, 1000);
  }

  function tick() {
    if (startedAt === null) return;
    var s = Math.max(0, Math.floor((Date.now() - startedAt) / 1000));
    $("elapsed").textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    var limit = parseInt(d.timeLimit, 10);
    if (limit && s >= limit) $("time-notice").hidden = false;
  }

  // Evaluate and Abandon stay disabled until the server has started the website ("go"): during
  // the reading countdown nothing may end the attempt (the server refuses it too).
  function allowEnding() {
    if (ending) return;
    $("evaluate").disabled = false;
    $("abandon").disabled = false;
    $("end-wait").hidden = true;
  }

  function begin() {
    var box = $("countdown");
    if (box) box.hidden = true;
    $("rec-label").textContent = "The website is starting…";
    post("/attempts/" + attemptId + "/begin").then(allowEnding).catch(showError);
  }

  function countdown() {
    var left = parseInt(d.countdown, 10) || 0;
    var box = $("countdown");
    if (left <= 0) { begin(); return; }
    box.hidden = false;
    $("countdown-seconds").textContent = left;
    var countdownTimer = setInterval(function () {
      left -= 1;
      $("countdown-seconds").textContent = Math.max(left, 0);
      if (left <= 0) { clearInterval(countdownTimer); begin(); }
    }, 1000);
    $("start-now").addEventListener("click", function () { clearInterval(countdownTimer); begin(); });
  }

  function showError(error) {
    var box = $("end-error");
    if (box) { box.textContent = error.message; box.hidden = false; }
    else { alert(error.message); }
  }

  function end(outcome) {
    if (ending) return;
    ending = true;
    $("evaluate").disabled = true;
    $("abandon").disabled = true;
    $("end-error").hidden = true;
    // The annotator's own clock at the press: the wall clock is measured on one clock.
    post("/attempts/" + attemptId + "/end", { outcome: outcome, client_ms: String(Date.now()) }).then(reload).catch(function (error) {
      ending = false;
      allowEnding();
      showError(error);
    });
  }

  // The website tab's presence: while it is away, count down the grace period and offer a fresh link.
  var refreshed = false;
  var goneAt = null;
  setInterval(function () { if (goneAt !== null) showGone(); }, 1000);
  function showGone() {
    $("gone-seconds").textContent = Math.max(0, Math.round(grace - (Date.now() / 1000 - goneAt)));
  }
  function websiteAway(lastSeen) {
    var box = $("website-gone");
    if (!box) return;
    goneAt = lastSeen === null || lastSeen === undefined ? null : lastSeen;
    box.hidden = goneAt === null;
    if (goneAt === null) { refreshed = false; return; }
    showGone();
    if (!refreshed) {
      refreshed = true; // a fresh single-use ticket, fetched before the person needs it
      fetch("/assignments/" + assignmentId + "/website", { credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (data) { if (data.url) $("reopen-website").href = data.url; })
        .catch(function () { refreshed = false; });
    }
  }
  if ($("reopen-website")) $("reopen-website").addEventListener("click", function () { refreshed = false; });

  if (state === "cold_active" || state === "warm_active") {
    if (d.started === "yes") { $("rec-label").textContent = "The website is starting…"; }
    else { countdown(); }
    $("evaluate").addEventListener("click", function () { end("evaluated"); });
    $("abandon").addEventListener("click", function () {
      if (confirm("Abandon this attempt? It ends now and counts as not completed.")) end("abandoned");
    });
  }

  if (state === "warm_ready") {
    $("start-warm").addEventListener("click", function (event) {
      event.target.disabled = true;
      post("/assignments/" + assignmentId + "/warm").then(reload)
        .catch(function (error) { event.target.disabled = false; alert(error.message); });
    });
  }

  // The rating is sent by script, so that a short outage does not lose it (a plain form's 503
  // would be the end of it): the same retries as Evaluate, then the list page.
  var ratingForm = $("rating-form");
  if (ratingForm) {
    ratingForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var buttons = ratingForm.querySelectorAll("button");
      var box = $("rating-error");
      buttons.forEach(function (b) { b.disabled = true; });
      if (box) box.hidden = true;
      // getAttribute: the form's buttons are named "action", which hides the form's own .action
      post(ratingForm.getAttribute("action"), new URLSearchParams(new FormData(ratingForm, event.submitter)))
        .then(function (data) { leaving = true; location.href = data.next || "/assignments"; })
        .catch(function (error) {
          ending = false;
          buttons.forEach(function (b) { b.disabled = false; });
          if (box) { box.textContent = error.message; box.hidden = false; } else { alert(error.message); }
        });
    });
  }

  // A submitted form (the rating) or a link this page offers is navigating away on purpose.
  document.addEventListener("submit", function () { ending = true; leaving = true; });

  // ---------------------------------------------------------------- live channel
  if (state !== "completed") {
    var connect = function () {
      var ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/control/" + assignmentId);
      ws.onmessage = function (message) {
        var data = JSON.parse(message.data);
        if (data.error) return;
        if (data.state && data.state !== state && !ending) {
          if (data.state === "not_started") { leaving = true; location.href = "/assignments?notice=rolled_back"; return; }
          reload();
          return;
        }
        if ($("events") && data.events !== null && data.events !== undefined) {
          $("events").textContent = data.events;
          // The clock starts with the first acknowledged event on the website, as the server's does.
          if (data.events > 0 && (state === "cold_active" || state === "warm_active")) startClock(parseInt(d.elapsedMs, 10) || 0);
        }
        if (state === "cold_active" || state === "warm_active" || state === "warm_ready") websiteAway(data.website_gone_at);
      };
      ws.onclose = function () { setTimeout(connect, 1000); };
    };
    connect();
  }
})();
