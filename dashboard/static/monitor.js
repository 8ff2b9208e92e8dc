// The live monitor: rows from the study's event stream (URL in the table's data-stream), times ticking every second.
(function () {
  const LABELS = {cold_active: "first attempt", warm_ready: "between attempts", warm_active: "warm attempt", rating: "rating form"};
  const body = document.getElementById("monitor-rows");
  let rows = [], skew = 0;
  function duration(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    const m = Math.floor(s / 60);
    return m ? m + " min " + String(s % 60).padStart(2, "0") + " s" : s + " s";
  }
  function cell(text, cls) { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; return td; }
  function draw() {
    body.replaceChildren();
    if (!rows.length) { const tr = document.createElement("tr"); const td = cell("Nobody is working right now.", "muted"); td.colSpan = 6; tr.append(td); body.append(tr); }
    const now = Date.now() + skew;
    rows.forEach(function (r) {
      const tr = document.createElement("tr");
      tr.dataset.code = r.code;
      const who = document.createElement("td"); const badge = document.createElement("span"); badge.className = "badge"; badge.textContent = r.code; who.append(badge);
      const link = document.createElement("td"); const a = document.createElement("a"); a.href = "/lead/assignments/" + r.assignment_id; a.textContent = "details"; link.append(a);
      tr.append(who, cell(r.task), cell(LABELS[r.state] || r.state), cell(r.since_ms ? duration(now - r.since_ms) : "—", "elapsed"),
                cell(r.control_tab ? "open" : "not seen", r.control_tab ? "" : "muted"), link);
      body.append(tr);
    });
    document.getElementById("working-count").textContent = rows.length;
  }
  const source = new EventSource(document.getElementById("monitor").dataset.stream);
  source.onopen = function () { document.getElementById("stream-state").textContent = "live"; };
  source.onerror = function () { document.getElementById("stream-state").textContent = "reconnecting…"; };
  source.onmessage = function (event) {
    const data = JSON.parse(event.data);
    if (data.error) { document.getElementById("stream-state").textContent = data.error; return; }
    skew = data.now_ms - Date.now();
    rows = data.working;
    document.getElementById("stream-state").textContent = "live";
    draw();
  };
  setInterval(draw, 1000);
})();
