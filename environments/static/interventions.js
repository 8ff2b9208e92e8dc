/* The client layer (served as /env-static/ux.js to every page; most sessions give it nothing to do).
 *
 * The config comes base64-encoded in the script tag's data-c attribute: {epoch, dispatches}.
 * Every dispatch is deterministic (no randomness, no clock) and recoverable by a competent person:
 * overlays and modals have buttons, swallowed clicks swallow only the first N, a stuck loader
 * does not come back after a reload. Budgets ("the first N") live in sessionStorage under the
 * epoch, which changes on every reset, so a warm attempt starts afresh. Elements rendered later by
 * the page's own script are handled as they appear (MutationObserver).
 */
(function () {
  "use strict";
  var tag = document.currentScript || document.querySelector("script[data-c]");
  if (!tag || !tag.dataset.c) return;
  var config;
  try {
    config = JSON.parse(atob(tag.dataset.c));
  } catch (err) {
    return;
  }
  var epoch = config.epoch || "0";
  var dispatches = config.dispatches || [];
  var bypass = false; // set while we re-dispatch a click we held back
  var clones = new WeakSet(); // copies we made: never treated as originals

  function key(d, name) { return "htux:" + epoch + ":" + d.index + ":" + name; }
  function getCount(d, name) {
    try { return parseInt(sessionStorage.getItem(key(d, name)) || "0", 10); } catch (err) { return 0; }
  }
  function bump(d, name) {
    var value = getCount(d, name) + 1;
    try { sessionStorage.setItem(key(d, name), String(value)); } catch (err) { /* private mode */ }
    return value;
  }

  // Run fn(element) once for every element matching selector, now and whenever one appears.
  var watchers = [];
  function each(selector, fn) {
    var seen = new WeakSet();
    function scan() {
      var found;
      try { found = document.querySelectorAll(selector); } catch (err) { return; }
      for (var i = 0; i < found.length; i++) {
        if (!seen.has(found[i]) && !clones.has(found[i])) {
          seen.add(found[i]);
          fn(found[i]);
        }
      }
    }
    watchers.push(scan);
    scan();
  }
  new MutationObserver(function () { watchers.forEach(function (scan) { scan(); }); })
    .observe(document.documentElement, { childList: true, subtree: true });

  // Click interceptors see every click first (window, capture phase).
  var interceptors = [];
  window.addEventListener("click", function (event) {
    if (bypass) return;
    for (var i = 0; i < interceptors.length; i++) {
      if (interceptors[i](event) === true) {
        event.preventDefault();
        event.stopImmediatePropagation();
        return;
      }
    }
  }, true);
  function matching(event, selector) {
    var target = event.target;
    return target && target.closest ? target.closest(selector) : null;
  }
  function replay(element) {
    bypass = true;
    try { element.click(); } finally { bypass = false; }
  }

  function el(tagName, style, text) {
    var node = document.createElement(tagName);
    if (style) node.setAttribute("style", style);
    if (text) node.textContent = text;
    return node;
  }
  var BACKDROP = "position:fixed;inset:0;z-index:2147483000;background:rgba(20,24,31,.55);" +
    "display:flex;align-items:center;justify-content:center;font-family:system-ui,sans-serif;";
  var PANEL = "background:#fff;color:#1f2328;max-width:26rem;width:90%;padding:1.4rem 1.6rem;" +
    "border-radius:10px;box-shadow:0 8px 30px rgba(0,0,0,.3);";
  var BUTTON = "margin:1rem .5rem 0 0;padding:.5rem 1.1rem;border-radius:6px;border:1px solid #8c959f;" +
    "background:#f6f8fa;font-size:1rem;cursor:pointer;";
  function dialog(title, message, buttons) {
    var backdrop = el("div", BACKDROP);
    var panel = el("div", PANEL);
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-modal", "true");
    if (title) panel.appendChild(el("h2", "margin:0 0 .6rem;font-size:1.2rem;", title));
    if (message) panel.appendChild(el("p", "margin:0;", message));
    buttons.forEach(function (spec) {
      var button = el("button", BUTTON, spec.text);
      button.type = "button";
      button.addEventListener("click", function (event) {
        event.stopPropagation();
        backdrop.remove();
        if (spec.then) spec.then();
      });
      panel.appendChild(button);
    });
    backdrop.appendChild(panel);
    document.body.appendChild(backdrop);
    return backdrop;
  }

  function setValue(input, value) {
    // Use the native setter so frameworks that track the value notice the change.
    var proto = Object.getPrototypeOf(input);
    var descriptor = Object.getOwnPropertyDescriptor(proto, "value");
    if (descriptor && descriptor.set) descriptor.set.call(input, value); else input.value = value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  var handlers = {
    // Swap the visible text of two elements (labels, buttons); what they act on stays put.
    misaligned_labels: function (d) {
      function swap(a, b) {
        var text = a.textContent;
        a.textContent = b.textContent;
        b.textContent = text;
      }
      if (d.selectors && d.selectors.length === 2) {
        var first = null;
        each(d.selectors[0], function (a) { first = a; tryPair(); });
        var second = null;
        each(d.selectors[1], function (b) { second = b; tryPair(); });
        function tryPair() { if (first && second) { swap(first, second); first = second = null; } }
      } else {
        var pending = [];
        each(d.selector, function (node) {
          pending.push(node);
          if (pending.length === 2) { swap(pending[0], pending[1]); pending = []; }
        });
      }
    },
    // A copy of the element next to it; clicking the copy does nothing.
    decoy_element: function (d) {
      each(d.selector, function (original) {
        for (var i = 0; i < (d.count || 1); i++) {
          var clone = original.cloneNode(true);
          clones.add(clone);
          clone.removeAttribute("id");
          clone.querySelectorAll("[id]").forEach(function (inner) { inner.removeAttribute("id"); });
          if (d.text) clone.textContent = d.text;
          clone.addEventListener("click", function (event) {
            event.preventDefault();
            event.stopPropagation();
          });
          original.parentNode.insertBefore(clone, d.position === "after" ? original.nextSibling : original);
        }
      });
    },
    // A promotion-like dialog over the page until its close button is pressed.
    intercepting_overlay: function (d) {
      function show() {
        if (getCount(d, "shown") >= (d.times || 1)) return;
        bump(d, "shown");
        dialog(d.title || "Before you continue", d.message || "", [{ text: d.close_text || "Close" }]);
      }
      if (d.trigger_selector) {
        interceptors.push(function (event) {
          if (matching(event, d.trigger_selector) && getCount(d, "shown") < (d.times || 1)) {
            show();
            return true;
          }
          return false;
        });
      } else if (d.selector) {
        each(d.selector, function () { setTimeout(show, d.delay_ms || 0); });
      } else {
        setTimeout(show, d.delay_ms || 0);
      }
    },
    // The first `count` clicks on the element do nothing.
    swallowed_clicks: function (d) {
      interceptors.push(function (event) {
        if (!matching(event, d.selector) || getCount(d, "swallowed") >= (d.count || 1)) return false;
        bump(d, "swallowed");
        return true;
      });
    },
    // A loading indicator that never finishes; it does not come back after a reload.
    stuck_loader: function (d) {
      function show() {
        if (getCount(d, "shown") >= (d.times || 1)) return;
        bump(d, "shown");
        var cover = el("div", BACKDROP + "background:rgba(255,255,255,.85);color:#1f2328;");
        cover.setAttribute("role", "progressbar");
        cover.setAttribute("aria-busy", "true");
        cover.appendChild(el("div", "font-size:1.1rem;", d.message || "Loading…"));
        document.body.appendChild(cover);
      }
      if (d.trigger_selector) {
        interceptors.push(function (event) {
          if (matching(event, d.trigger_selector)) setTimeout(show, d.delay_ms || 0);
          return false; // the click itself goes through
        });
      } else {
        setTimeout(show, d.delay_ms || 0);
      }
    },
    // "Are you sure?" before the click takes effect.
    confirmation_modal: function (d) {
      interceptors.push(function (event) {
        var target = matching(event, d.selector);
        if (!target || getCount(d, "asked") >= (d.times || 1)) return false;
        bump(d, "asked");
        var confirm = { text: d.confirm_text || "Confirm", then: function () { replay(target); } };
        var cancel = { text: d.cancel_text || "Cancel" };
        dialog(d.title || "Are you sure?", d.message || "Please confirm to continue.",
               d.swap_buttons ? [confirm, cancel] : [cancel, confirm]);
        return true;
      });
    },
    // Saving changes the field to `value` just before the save goes out (visible in the field).
    save_drift: function (d) {
      interceptors.push(function (event) {
        if (!matching(event, d.submit_selector) || getCount(d, "drifted") >= (d.count || 1)) return false;
        var field = document.querySelector(d.selector);
        if (!field) return false;
        bump(d, "drifted");
        setValue(field, d.value);
        return false;
      });
    },
    // The click is held back silently for a moment, so an impatient second click submits twice.
    double_submit_trap: function (d) {
      interceptors.push(function (event) {
        var target = matching(event, d.selector);
        if (!target || getCount(d, "held") >= (d.count || 1)) return false;
        bump(d, "held");
        setTimeout(function () { replay(target); }, d.delay_ms || 2000);
        return true;
      });
    }
  };

  function start() {
    dispatches.forEach(function (d) {
      var handler = handlers[d.action];
      if (handler) handler(d);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
