// The control tab: reading countdown, the environment window, live status, Evaluate and Abandon.
(function () {
  "use strict";
  var root = document.getElementById("control");
  if (!root) return;
  var d = root.dataset;
  var assignmentId = d.assignment;
  var attemptId = d.attempt;
  var state = d.state;
  var csrf = d.csrf;
  var envName = "ht-env-" + assignmentId;
  var envWindow = null;
  var ending = false;

  function $(id) { return document.getElementById(id); }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf, "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body || {}).toString()
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) { throw new Error(data.detail || ("The server answered " + response.status + ". Try again.")); }
        return data;
      });
    });
  }

  // Reuse the environment window if this tab opened it before (a reload keeps its name).
  function findEnvWindow() {
    if (envWindow && !envWindow.closed) return envWindow;
    try {
      var existing = window.open("", envName);
      if (existing && existing.location.href !== "about:blank") { envWindow = existing; return existing; }
      if (existing) existing.close();
    } catch (e) { /* a cross-origin or blocked window */ }
    return null;
  }

  function navigateEnv(url) {
    var w = window.open(url, envName);
    if (!w) { $("popup-blocked") && ($("popup-blocked").hidden = false); return null; }
    envWindow = w;
    if ($("popup-blocked")) $("popup-blocked").hidden = true;
    return w;
  }

  function openEnvironment() {
    if (findEnvWindow()) return;
    navigateEnv("/attempts/" + attemptId + "/environment");
  }

  // ---------------------------------------------------------------- active attempt
  var startedAt = null; // client time corresponding to the start of the wall clock

  function startClock(elapsedMs) {
    startedAt = Date.now() - elapsedMs;
    $("rec").classList.add("live");
    $("rec-label").textContent = "REC";
    tick();
    setInterval(tick, 1000);
  }

  function tick() {
    if (startedAt === null) return;
    var s = Math.max(0, Math.floor((Date.now() - startedAt) / 1000));
    $("elapsed").textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    var limit = parseInt(d.timeLimit, 10);
    if (limit && s >= limit) $("time-notice").hidden = false;
  }

  function begin() {
    var box = $("countdown");
    if (box) box.hidden = true;
    post("/attempts/" + attemptId + "/begin").then(function () {
      startClock(0);
    }).catch(showError);
    // Always (re)point the environment window at this attempt: between the cold and the warm
    // attempt it shows the between-attempts page.
    navigateEnv("/attempts/" + attemptId + "/environment");
  }

  function countdown() {
    var left = parseInt(d.countdown, 10) || 0;
    var box = $("countdown");
    if (left <= 0) { begin(); return; }
    box.hidden = false;
    $("countdown-seconds").textContent = left;
    var timer = setInterval(function () {
      left -= 1;
      $("countdown-seconds").textContent = Math.max(left, 0);
      if (left <= 0) { clearInterval(timer); begin(); }
    }, 1000);
    $("start-now").addEventListener("click", function () { clearInterval(timer); begin(); });
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
    post("/attempts/" + attemptId + "/end", { outcome: outcome }).then(function () {
      var w = findEnvWindow();
      if (w) navigateEnv("/assignments/" + assignmentId + "/between");
      location.reload();
    }).catch(function (error) {
      ending = false;
      $("evaluate").disabled = false;
      $("abandon").disabled = false;
      showError(error);
    });
  }

  if (state === "cold_active" || state === "warm_active") {
    if (d.started === "yes") { startClock(parseInt(d.elapsedMs, 10) || 0); openEnvironment(); }
    else { countdown(); }
    $("open-env").addEventListener("click", function () { navigateEnv("/attempts/" + attemptId + "/environment"); });
    $("evaluate").addEventListener("click", function () { end("evaluated"); });
    $("abandon").addEventListener("click", function () {
      if (confirm("Abandon this attempt? It ends now and counts as not completed.")) end("abandoned");
    });
  }

  if (state === "warm_ready") {
    $("start-warm").addEventListener("click", function (event) {
      event.target.disabled = true;
      post("/assignments/" + assignmentId + "/warm").then(function () { location.reload(); })
        .catch(function (error) { event.target.disabled = false; alert(error.message); });
    });
  }

  // A submitted form (the rating) is navigating away: a live-channel reload must not cancel it.
  document.addEventListener("submit", function () { ending = true; });

  // ---------------------------------------------------------------- live channel
  if (state !== "completed") {
    var connect = function () {
      var ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/control/" + assignmentId);
      ws.onmessage = function (message) {
        var data = JSON.parse(message.data);
        if (data.error) return;
        if (data.state && data.state !== state && !ending) { location.reload(); return; }
        if ($("events") && data.events !== null && data.events !== undefined) $("events").textContent = data.events;
      };
      ws.onclose = function () { setTimeout(connect, 1000); };
    };
    connect();
  }
})();
