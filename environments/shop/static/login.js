/* Sign in: continue with the remembered account or type the email address. */
(function () {
  "use strict";
  const S = window.Shop;
  const { api, esc, errorPanel, loading, busy, main, BASE, params } = S;

  function destination() {
    const next = params().get("next") || "";
    return next.startsWith(BASE + "/") && !next.startsWith(BASE + "/login") ? next : BASE + "/";
  }

  async function signIn(email, button, errorBox) {
    await busy(button, async () => {
      try {
        await api("POST", "/login", { email });
        location.href = destination();
      } catch (err) {
        errorBox.hidden = false;
        errorBox.textContent = err.detail;
      }
    });
  }

  async function load() {
    loading(main);
    try {
      const data = await api("GET", "/login");
      const who = data.remembered;
      main.innerHTML = `<section class="panel" style="max-width:420px;margin:30px auto">
        <h1>Sign in</h1>
        ${data.signed_in ? `<div class="alert info">You're signed in as ${esc(who.email)}.</div>` : ""}
        <div class="form-error" id="login-error" role="alert" hidden></div>
        <button type="button" class="choice" id="continue-as" style="width:100%;text-align:left">
          <span class="logo-mark" aria-hidden="true" style="width:38px;height:38px">${esc(who.name[0])}</span>
          <span><strong>Continue as ${esc(who.name.split(" ")[0])}</strong><br><span class="small muted">${esc(who.email)}</span></span></button>
        <p class="muted small" style="text-align:center">or</p>
        <form id="login-form">
          <div class="field"><label for="login-email">Email</label><input id="login-email" type="email" autocomplete="username" required></div>
          <div class="field"><label for="login-password">Password</label><input id="login-password" type="password" autocomplete="current-password"></div>
          <button class="btn btn-primary btn-block" type="submit" id="login-submit">Sign in</button>
        </form>
        <p class="small muted" style="margin-top:14px">This device is remembered, so you can continue without your password.</p></section>`;
      const errorBox = document.getElementById("login-error");
      document.getElementById("continue-as").addEventListener("click", (e) => signIn(who.email, e.currentTarget, errorBox));
      document.getElementById("login-form").addEventListener("submit", (e) => {
        e.preventDefault();
        signIn(document.getElementById("login-email").value, document.getElementById("login-submit"), errorBox);
      });
    } catch (err) {
      errorPanel(main, err, load);
    }
  }
  load();
})();
