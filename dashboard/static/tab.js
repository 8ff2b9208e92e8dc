// The website tab's channel to the server, on the website's own origin: it keeps the tab's
// presence and follows the server's "go" (load the website) and "ended" (show the ended page).
(function () {
  "use strict";
  var moving = false;
  function connect() {
    var ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/website/ws");
    ws.onmessage = function (message) {
      var data = JSON.parse(message.data);
      if (data.url && !moving) { moving = true; location.replace(data.url); }
    };
    ws.onclose = function (event) { if (!moving && event.code !== 1008) setTimeout(connect, 1000); };
  }
  connect();
})();
