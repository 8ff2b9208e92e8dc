// Start: inside the same click, open the website tab on the environments' own host name with
// noopener (so no popup blocker stops it and it holds no reference to this tab), then let the
// form make this tab the control tab. The website tab shows a cover until the server says "go".
(function () {
  "use strict";
  document.querySelectorAll("form.start-form").forEach(function (form) {
    form.addEventListener("submit", function () {
      if (form.dataset.website) window.open(form.dataset.website, "_blank", "noopener");
    });
  });
})();
