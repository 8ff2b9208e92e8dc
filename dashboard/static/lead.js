// Behaviour of the lead pages, kept out of the templates (the dashboard's Content-Security-Policy
// allows no inline script or style). Each part acts only where its elements are on the page.
(function () {
  "use strict";
  // Progress bars: the width comes from data-width (a percentage), set through the CSSOM.
  document.querySelectorAll(".bar > span[data-width]").forEach(function (span) {
    span.style.width = Math.max(0, Math.min(100, Number(span.dataset.width) || 0)) + "%";
  });
  // Pages that refresh themselves: <main data-reload-seconds="N">.
  var reloading = document.querySelector("[data-reload-seconds]");
  if (reloading) setTimeout(function () { location.reload(); }, 1000 * Number(reloading.dataset.reloadSeconds));
  // Forms that ask first: <form data-confirm="question">.
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!confirm(form.dataset.confirm)) event.preventDefault();
    });
  });
  // People: "Copy fresh link" asks for a new single-use login link and puts it on the clipboard.
  document.querySelectorAll(".copy-link").forEach(function (button) {
    button.addEventListener("click", async function () {
      const code = button.dataset.code;
      const response = await fetch(button.dataset.linkUrl, {method: "POST", headers: {"X-CSRF-Token": button.dataset.csrf, "Accept": "application/json"}});
      const out = document.getElementById("copied");
      if (!response.ok) { out.textContent = "No link: " + ((await response.json()).detail || response.status); return; }
      const body = await response.json();
      button.dataset.url = body.url;
      try { await navigator.clipboard.writeText(body.url); out.textContent = "A new single-use link for " + code + " is on the clipboard."; }
      catch (e) { out.textContent = "Link for " + code + ": " + body.url; }
    });
  });
})();
