/*
 * humantrace recorder: streams the DOM events a person makes on this page to the humantrace server.
 * One self-contained file, no dependencies, no build step. Docs: docs/recorder.md.
 *
 * Configuration, first found wins:
 *   window.HUMANTRACE_RECORDER = {token, server, maskAllText, maskSelectors, mousemoveSampleMs, debug}
 *   <script src=".../recorder/recorder.js" data-token data-server data-mask-all data-mask-selectors
 *           data-mousemove-ms data-debug>
 *
 * Guarantees: every tab is its own stream; every event gets a `seq` contiguous in its stream (kept in
 * sessionStorage across navigations and reloads in this tab); unacknowledged events stay in
 * sessionStorage until the server acknowledges them, and are resent after reconnects, reloads and
 * server restarts. The server drops duplicates. Same-origin iframes are recorded by the top
 * document's recorder; a frame it cannot enter is reported as a `frame_gap`.
 */
(function () {
  'use strict';

  var w = window;
  var MARK = typeof Symbol === 'function' ? Symbol.for('humantrace.recorder') : '__humantrace_recorder';
  var ADOPT = typeof Symbol === 'function' ? Symbol.for('humantrace.recorder.adopt') : '__humantrace_recorder_adopt';
  if (w.top !== w) {
    // A copy running inside a frame (init script, or the page's own tag) records nothing itself:
    // it hands its window to the top document's recorder as early as it can, so shadow roots
    // created by the frame's scripts are seen too. A cross-origin top throws here: the top's
    // recorder reports that frame as a frame_gap instead.
    try { var adopt = w.top[ADOPT]; if (typeof adopt === 'function') adopt(w); } catch (e) { /* cross-origin */ }
    return;
  }
  if (!/^(https?|file):$/.test(location.protocol)) return; // not about:blank and the like
  if (w[MARK]) return; // loaded twice (init script and script tag): the first one records
  try { Object.defineProperty(w, MARK, { value: true }); } catch (e) { return; }

  // ------------------------------------------------------------------------------------ config
  var globalConfig = w.HUMANTRACE_RECORDER || {};
  var script = document.currentScript;
  var data = (script && script.dataset) || {};

  function first(values, fallback) {
    for (var i = 0; i < values.length; i++) {
      if (values[i] !== undefined && values[i] !== null && values[i] !== '') return values[i];
    }
    return fallback;
  }

  // CSS selectors a site or study declares sensitive: a JSON array (or a list), invalid ones dropped.
  function readSelectors(value) {
    var list = value;
    if (typeof value === 'string') { try { list = JSON.parse(value); } catch (e) { list = []; } }
    if (!(list instanceof Array)) return '';
    var valid = [];
    for (var i = 0; i < list.length; i++) {
      try { document.createDocumentFragment().querySelector(String(list[i])); valid.push(String(list[i])); } catch (e) {
        if (w.console) console.warn('humantrace recorder: ignoring invalid mask selector ' + list[i]);
      }
    }
    return valid.join(',');
  }

  var token = first([globalConfig.token, data.token], '');
  if (!token) {
    if (w.console) console.warn('humantrace recorder: no token configured; not recording');
    return;
  }
  var server = String(first([globalConfig.server, data.server], location.origin)).replace(/\/+$/, '');
  var maskAll = globalConfig.maskAllText === true || data.maskAll === 'true';
  var moveMs = Number(first([globalConfig.mousemoveSampleMs, data.mousemoveMs], 100));
  var maskSelectors = readSelectors(first([globalConfig.maskSelectors, data.maskSelectors], []));
  if (!(moveMs >= 0)) moveMs = 100;
  var debug = globalConfig.debug === true || data.debug === 'true';

  // Limits agreed with the server (recorder/schemas.py); longer strings are truncated here.
  var MAX_VALUE = 4096, MAX_XPATH = 2048, MAX_URL = 2048, MAX_KEY = 64, MAX_UA = 1024;
  var FLUSH_EVENTS = 50, FLUSH_MS = 500;
  var FRAME_EVENTS = 500, FRAME_BYTES = 240 * 1024, BEACON_BYTES = 60 * 1024;
  var DOM_CHANGE_MS = 250, RESIZE_MS = 250;
  var BACKOFF_BASE_MS = 250, BACKOFF_CAP_MS = 5000;
  var STORAGE_KEY = 'humantrace:' + token;
  var EVENTS_URL = server + '/recorder/events';
  var SOCKET_URL = server.replace(/^http/, 'ws') + '/recorder/ws?token=' + encodeURIComponent(token) + '&tab=';

  // ------------------------------------------------------------------------------------ state
  // {tab: this tab's stream key, next: next seq to assign, acked: highest seq the server holds
  //  contiguously for the stream, events: unacked, meta: sent}
  var state;
  var restored = false; // state came from sessionStorage: maybe a copy another live tab also holds

  function newTabId() {
    var bytes = new Uint8Array(12);
    if (w.crypto && w.crypto.getRandomValues) w.crypto.getRandomValues(bytes);
    else for (var i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
    var out = '';
    for (var j = 0; j < bytes.length; j++) out += (bytes[j] + 256).toString(16).slice(1);
    return out;
  }

  function freshState() { return { tab: newTabId(), next: 0, acked: -1, events: [], meta: false }; }

  function loadState() {
    var stored = null;
    try { stored = JSON.parse(w.sessionStorage.getItem(STORAGE_KEY) || 'null'); } catch (e) { stored = null; }
    if (stored && typeof stored.tab === 'string' && /^[0-9a-f]{8,64}$/.test(stored.tab) && typeof stored.next === 'number' &&
        typeof stored.acked === 'number' && stored.events instanceof Array) {
      restored = true;
      return stored;
    }
    return freshState();
  }

  function persist() {
    try { w.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(state)); } catch (e) { /* full or blocked: memory only */ }
  }

  state = loadState();
  var stopped = false;

  // ------------------------------------------------------------------------------------ helpers
  function clip(s, n) {
    if (s === null || s === undefined) return null;
    s = String(s);
    if (s.length > n) {
      s = s.slice(0, n);
      var last = s.charCodeAt(n - 1);
      if (last >= 0xd800 && last <= 0xdbff) s = s.slice(0, -1);
    }
    return s.toWellFormed ? s.toWellFormed() : s;
  }

  function round(v) { return Math.round(Number(v) * 100) / 100 || 0; }
  function pixels(v) { v = Math.round(Number(v)) || 0; return v < 0 ? 0 : (v > 100000 ? 100000 : v); }

  var NON_TEXT_INPUTS = { checkbox: 1, radio: 1, range: 1, color: 1, file: 1, submit: 1, button: 1, reset: 1, image: 1, hidden: 1 };
  // Elements that may carry a shadow root (DOM spec, attachShadow), besides custom elements.
  var SHADOW_HOSTS = { article: 1, aside: 1, blockquote: 1, div: 1, footer: 1, h1: 1, h2: 1, h3: 1, h4: 1, h5: 1, h6: 1,
    header: 1, main: 1, nav: 1, p: 1, section: 1, span: 1 };

  // ------------------------------------------------------------------------------------ masking
  // A field is masked for the whole recording once it has ever been sensitive: a "show password"
  // toggle that turns type=password into type=text must not reveal the next keystrokes.
  var everMasked = new WeakSet();
  var shadowRoots = new WeakMap(); // host -> its shadow root, closed ones included (attachShadow wrapped)

  function isSensitive(el) {
    if (el.localName === 'input' && el.type === 'password') return true;
    if (/password|one-time-code/i.test(el.getAttribute('autocomplete') || '')) return true;
    if (maskSelectors) { try { return el.matches(maskSelectors); } catch (e) { return false; } }
    return false;
  }

  function isTextual(el) {
    if (!el || el.nodeType !== 1) return false;
    if (el.localName === 'textarea' || el.isContentEditable) return true;
    return el.localName === 'input' && !NON_TEXT_INPUTS[el.type];
  }

  function isField(el) {
    return el.localName === 'input' || el.localName === 'textarea' || el.localName === 'select' || el.isContentEditable;
  }

  function masks(el) {
    if (!el || el.nodeType !== 1) return maskAll;
    if (everMasked.has(el)) return true;
    if (isSensitive(el)) { everMasked.add(el); return true; }
    return maskAll && isTextual(el);
  }

  // The element an event really happened on: composedPath()[0] sees into open shadow roots, and
  // the focused element of a root we hold (closed ones too) is where keys and values go.
  function deepTarget(e, t) {
    var path = e && e.composedPath ? e.composedPath() : null;
    var el = path && path.length && path[0].nodeType === 1 ? path[0] : t;
    for (var i = 0; el && el.nodeType === 1 && i < 32; i++) {
      var root = shadowRoots.get(el) || el.shadowRoot;
      if (!root || !root.activeElement) break;
      el = root.activeElement;
    }
    return el;
  }

  // A target we cannot see into: a shadow host (the real field is inside a root the recorder does
  // not hold) rather than a field or an element focused in its own right.
  function opaque(el) {
    if (!el || el.nodeType !== 1 || isField(el)) return false;
    var doc = el.ownerDocument;
    if (el === doc.body || el === doc.documentElement) return false;
    if (shadowRoots.get(el) || el.shadowRoot) return true; // descended as far as we could
    var host = el.localName.indexOf('-') > 0 || SHADOW_HOSTS[el.localName];
    var focusedInside = doc.activeElement === el && el.tabIndex < 0 && !el.hasAttribute('tabindex');
    return !!host && (el.localName.indexOf('-') > 0 || focusedInside);
  }

  function maskText(s) { return new Array(s.length + 1).join('*'); }

  function isPrintable(key) {
    return key.length === 1 || (key.length === 2 && key.charCodeAt(0) >= 0xd800 && key.charCodeAt(0) <= 0xdbff);
  }

  function onTypeChange(records) {
    for (var i = 0; i < records.length; i++) {
      if (/^password$/i.test(records[i].oldValue || '')) everMasked.add(records[i].target);
    }
  }
  var typeObserver = typeof MutationObserver === 'function' ? new MutationObserver(onTypeChange) : null;
  var TYPE_OPTIONS = { attributes: true, attributeFilter: ['type'], attributeOldValue: true, subtree: true };

  function wrapAttachShadow(win) {
    var proto = win.Element && win.Element.prototype;
    var original = proto && proto.attachShadow;
    if (typeof original !== 'function' || original.__humantrace) return;
    var wrapped = function () {
      var root = original.apply(this, arguments);
      shadowRoots.set(this, root);
      if (typeObserver) { try { typeObserver.observe(root, TYPE_OPTIONS); } catch (e) { /* not observable */ } }
      return root;
    };
    wrapped.__humantrace = true;
    try { proto.attachShadow = wrapped; } catch (e) { /* frozen prototype */ }
  }

  // ------------------------------------------------------------------------------------ xpath
  var HTML_NS = 'http://www.w3.org/1999/xhtml';
  var xpathCache = new WeakMap();
  var observer = null;
  var FRAME_SEP = ' >> ';
  var frameChains = new WeakMap(); // document -> frame_xpath ('' for the top document)

  function step(el) {
    var name = el.localName, ns = el.namespaceURI, index = 1;
    for (var sib = el.previousElementSibling; sib; sib = sib.previousElementSibling) {
      if (sib.localName === name && sib.namespaceURI === ns) index++;
    }
    if (ns === HTML_NS) {
      if ((name === 'body' || name === 'head') && el.parentNode === el.ownerDocument.documentElement) return name;
      return name + '[' + index + ']';
    }
    return "*[local-name()='" + name + "'][" + index + ']';
  }

  function docOf(node) {
    if (!node) return null;
    if (node.nodeType === 9) return node;
    if (node.document && node.document.nodeType === 9) return node.document; // a window
    return node.ownerDocument || null;
  }

  // Absolute XPath that document.evaluate resolves back to the element in its own document (the
  // frame's, for frames); null when detached or inside a shadow root: events from shadow DOM are
  // retargeted to the host, whose XPath is recorded.
  function xpathOf(node) {
    var doc = docOf(node);
    if (!doc) return null;
    if (node === doc || node.nodeType === undefined || node === doc.documentElement) return '/html';
    if (node.nodeType === 3) node = node.parentNode;
    if (!node || node.nodeType !== 1 || !node.isConnected || node.getRootNode() !== doc) return null;
    if (observer) countMutations(observer.takeRecords()); // so the cache below is never stale
    var cached = xpathCache.get(node);
    if (cached) return cached;
    var parts = [];
    for (var el = node; el && el.nodeType === 1 && el !== doc.documentElement; el = el.parentNode) {
      parts.push(step(el));
    }
    var path = clip('/html/' + parts.reverse().join('/'), MAX_XPATH);
    if (path === '/html/') path = '/html';
    xpathCache.set(node, path);
    return path;
  }

  // ------------------------------------------------------------------------------------ capture
  var unflushed = 0;
  var flushTimer = null;

  function record(type, target, fields, doc) {
    if (stopped) return;
    var event = { type: type, seq: state.next++, t_ms: Date.now(), xpath: target === null ? null : xpathOf(target), url: clip(location.href, MAX_URL) };
    var chain = frameChains.get(doc || docOf(target) || document);
    if (chain) event.frame_xpath = clip(chain, MAX_XPATH); // only inside frames: top events stay as small as before
    for (var k in fields) event[k] = fields[k];
    state.events.push(event);
    unflushed++;
    scheduleFlush(unflushed >= FLUSH_EVENTS ? 0 : FLUSH_MS);
  }

  function elementTarget(e) {
    var t = e.target;
    return t && (t.nodeType === 1 || t.nodeType === 3 || t.nodeType === 9) ? t : null;
  }

  function onPointer(e) {
    var t = elementTarget(e);
    if (!t) return;
    if (e.type === 'mousedown') { flushMove(); masks(deepTarget(e, t)); checkWatched(); }
    if (e.type === 'click') checkWatched();
    record(e.type, t, { x: round(e.clientX), y: round(e.clientY) });
  }

  function onKeydown(e) {
    var t = elementTarget(e) || e.currentTarget.document.body;
    var key = typeof e.key === 'string' && e.key ? e.key : 'Unidentified';
    var deep = deepTarget(e, t);
    if (isPrintable(key) && (maskAll || masks(deep) || opaque(deep))) key = '*';
    checkWatched();
    record('keydown', t, { key: clip(key, MAX_KEY) });
  }

  function rawValue(el) {
    if (!el || el.nodeType !== 1) return null;
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked ? 'true' : 'false';
    if (el.localName === 'input' || el.localName === 'textarea' || el.localName === 'select') return String(el.value === undefined || el.value === null ? '' : el.value);
    // innerText keeps the line breaks a person typed (textContent drops <br> and block breaks).
    if (el.isContentEditable) return editorText(String(el.innerText === undefined ? el.textContent : el.innerText));
    return null;
  }

  // Rich-text editors mark a caret that starts a new format with a zero-width character (Quill
  // and Slate U+FEFF, others U+200B or U+2060): not text a person wrote, so a value never holds
  // one. U+200C/U+200D stay: they join emoji and shape scripts, and a person may type them.
  var CARET_MARKS = /[\u200b\u2060\ufeff]/g;
  function editorText(s) { return s.replace(CARET_MARKS, ''); }

  function maskedValue(el, value) {
    if (value === null) return null;
    var text = el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio');
    return clip(!text && masks(el) ? maskText(value) : value, MAX_VALUE);
  }

  // Fields a person has used: a value that changes there without an input event (an autocomplete
  // completing the word, a date picker writing the date) is recorded as a `change`. A script that
  // writes the value of a field the person typed into and still has focused makes the browser
  // fire its own `change` with that value when the person leaves the field: that one confirms the
  // value already recorded and is not recorded again (`scripted` holds the value until an input or
  // change of the field is seen), so one value a script set is one `change`, recorded when it
  // appeared.
  var watched = [], lastValues = new WeakMap(), scripted = new WeakMap(), MAX_WATCHED = 32;

  // Text fields only: a checkbox is already checked when its click is dispatched, before its own
  // input and change events, and those report it.
  function watch(el, value) {
    if (!el || el.nodeType !== 1 || !isTextual(el)) return;
    lastValues.set(el, value);
    if (watched.indexOf(el) < 0) { watched.push(el); if (watched.length > MAX_WATCHED) watched.shift(); }
  }

  function checkWatched() {
    for (var i = 0; i < watched.length; i++) {
      var el = watched[i];
      if (!el.isConnected) { watched.splice(i--, 1); continue; }
      var value = rawValue(el);
      if (value === lastValues.get(el)) continue;
      lastValues.set(el, value);
      scripted.set(el, value);
      record('change', el, { value: maskedValue(el, value) });
    }
  }

  function onValue(e) {
    var t = elementTarget(e);
    if (!t) return;
    var deep = deepTarget(e, t);
    var value = rawValue(deep);
    if (value === null && deep !== t) value = rawValue(t);
    var confirms = e.type === 'change' && value !== null && scripted.has(deep) && scripted.get(deep) === value;
    scripted.delete(deep);
    if (!confirms) record(e.type, t, { value: value === null ? null : maskedValue(deep, value) });
    watch(deep, value);
  }

  function onSubmit(e) {
    var t = elementTarget(e);
    if (!t) return;
    checkWatched();
    record('submit', t, {});
  }

  function onFocus(e) {
    var t = e.target;
    if (!t || t.nodeType !== 1) return;
    var deep = deepTarget(e, t);
    masks(deep); // a field that is sensitive now stays masked even if it changes type later
    checkWatched();
    record(e.type, t, {});
    if (e.type === 'focus' && watched.indexOf(deep) < 0) watch(deep, rawValue(deep));
  }

  // HTML5 drag and drop: where the drag started and where it was dropped.
  function onDrag(e) {
    var t = elementTarget(e);
    if (t) record(e.type, t, { x: round(e.clientX), y: round(e.clientY) });
  }

  // scroll: one stream per container; dx/dy against that container's previous recorded position
  var lastScroll = new WeakMap();
  var docScrolls = new WeakMap(); // document -> last recorded position
  docScrolls.set(document, { x: w.scrollX || 0, y: w.scrollY || 0 });

  function onScroll(e) {
    var t = e.target, pos, prev, target, doc = docOf(t);
    if (!doc) return;
    var win = doc.defaultView;
    if (t === doc || t === doc.documentElement || (t === doc.body && doc.scrollingElement === t)) {
      pos = { x: win.scrollX, y: win.scrollY };
      prev = docScrolls.get(doc) || { x: 0, y: 0 };
      docScrolls.set(doc, pos);
      target = doc;
    } else if (t && t.nodeType === 1) {
      pos = { x: t.scrollLeft, y: t.scrollTop };
      prev = lastScroll.get(t) || { x: 0, y: 0 };
      lastScroll.set(t, pos);
      target = t;
    } else {
      return;
    }
    record('scroll', target, { scroll_x: round(pos.x), scroll_y: round(pos.y), dx: round(pos.x - prev.x), dy: round(pos.y - prev.y) });
  }

  // mousemove: at most one per moveMs, plus the last position after the pointer stops
  var lastMoveAt = 0, moveTimer = null, pendingMove = null;

  function emitMove(move) {
    lastMoveAt = Date.now();
    pendingMove = null;
    record('mousemove', move.target, { x: move.x, y: move.y });
  }

  // A press records the pointer's last position first, so moves and the press stay in order.
  function flushMove() { if (pendingMove) emitMove(pendingMove); }

  function onMove(e) {
    var t = elementTarget(e);
    if (!t) return;
    var move = { target: t, x: round(e.clientX), y: round(e.clientY) };
    var since = Date.now() - lastMoveAt;
    if (since >= moveMs) { emitMove(move); return; }
    pendingMove = move;
    if (!moveTimer) {
      moveTimer = setTimeout(function () { moveTimer = null; if (pendingMove) emitMove(pendingMove); }, moveMs - since);
    }
  }

  // select: text selected in a field (select event) or in the page (checked after mouseup/keyup)
  var lastSelection = '';

  function onFieldSelect(e) {
    var t = elementTarget(e);
    if (!t) return;
    var deep = deepTarget(e, t);
    if (typeof deep.selectionStart !== 'number') return;
    var text = String(deep.value || '').slice(deep.selectionStart, deep.selectionEnd);
    if (!text) return;
    record('select', t, { value: clip(masks(deep) || opaque(deep) ? maskText(text) : text, MAX_VALUE) });
  }

  function checkPageSelection(doc) {
    var sel = doc.getSelection ? doc.getSelection() : null;
    if (!sel || sel.isCollapsed || sel.rangeCount === 0) { lastSelection = ''; return; }
    var active = doc.activeElement;
    if (active && (active.localName === 'input' || active.localName === 'textarea')) return; // the select event covers fields
    var node = sel.getRangeAt(0).commonAncestorContainer;
    var el = node.nodeType === 1 ? node : node.parentNode;
    var text = sel.toString();
    if (el && el.isContentEditable) text = editorText(text); // a word selected to format it
    if (!text || text === lastSelection) return;
    lastSelection = text;
    record('select', el, { value: clip(selectionMasked(sel, el) ? maskText(text) : text, MAX_VALUE) });
  }

  // Page text is masked when the selection touches a masked element: one the selection sits in
  // (a word inside a masked cell) or one inside the selection (a triple click takes the cell's
  // whole block, whose common ancestor is the row or the list around it).
  function selectionMasked(sel, el) {
    if (masks(el)) return true;
    if (!maskSelectors || !el || el.nodeType !== 1) return false;
    try {
      if (el.closest(maskSelectors)) return true;
      var inside = el.querySelectorAll(maskSelectors);
      for (var i = 0; i < inside.length; i++) {
        if (sel.containsNode(inside[i], true)) return true;
      }
    } catch (e) { return true; } // a selector the page cannot evaluate: mask rather than leak
    return false;
  }

  function onSelectionEnd(e) {
    var doc = docOf(e.target) || document;
    if (e.type === 'mouseup') onPointer(e);
    setTimeout(function () { checkPageSelection(doc); }, 0);
  }

  // navigation
  function recordNav(kind) { record('navigation', null, { nav: kind }); }

  ['pushState', 'replaceState'].forEach(function (name) {
    var original = w.history && w.history[name];
    if (typeof original !== 'function') return;
    w.history[name] = function () {
      var result = original.apply(this, arguments);
      recordNav(name === 'pushState' ? 'push' : 'replace');
      return result;
    };
  });

  // resize (throttled, trailing) and visibility
  var resizeTimer = null;

  function onResize() {
    if (resizeTimer) return;
    resizeTimer = setTimeout(function () {
      resizeTimer = null;
      record('resize', null, { width: pixels(w.innerWidth), height: pixels(w.innerHeight) });
    }, RESIZE_MS);
  }

  function onVisibility() {
    var s = document.visibilityState;
    if (s !== 'visible' && s !== 'hidden') return;
    record('visibility', null, { state: s });
    if (s === 'hidden') {
      checkWatched();
      persist();
      if (socketReady()) pump(); else beacon();
    }
  }

  // dom_change: counts of added/removed nodes and attribute changes, at most one summary per 250 ms
  var mutations = { added: 0, removed: 0, attributes: 0 };
  var lastDomChangeAt = 0, domTimer = null;
  var MAX_COUNT = 2147483647;

  function countMutations(records) {
    if (!records.length) return;
    for (var i = 0; i < records.length; i++) {
      var r = records[i];
      // the parser building a page (or a frame) is not a change
      var counting = (r.target.ownerDocument || r.target).readyState !== 'loading';
      if (r.type === 'childList') {
        xpathCache = new WeakMap(); // sibling indices may have changed
        if (!counting) continue;
        mutations.added += r.addedNodes.length;
        mutations.removed += r.removedNodes.length;
      } else if (r.type === 'attributes' && counting && !harnessWrite(r)) {
        mutations.attributes += 1;
      }
    }
    if ((mutations.added || mutations.removed || mutations.attributes) && !domTimer) {
      domTimer = setTimeout(emitDomChange, Math.max(0, DOM_CHANGE_MS - (Date.now() - lastDomChangeAt)));
    }
  }

  // An agent harness (BrowserGym) marks every element before it reads the page: `bid`,
  // `browsergym_*`, a "browsergym_id_N " prefix in aria-description/aria-roledescription, and the
  // live value/checked copied into the attributes. Those writes are not the page changing, so an
  // agent's dom_change counts only what a person's would.
  function harnessWrite(r) {
    var name = r.attributeName || '';
    if (name === 'bid' || name.indexOf('browsergym_') === 0) return true;
    var el = r.target, now = el.getAttribute ? el.getAttribute(name) : null;
    if (name === 'aria-description' || name === 'aria-roledescription') {
      return (r.oldValue || '').indexOf('browsergym_id') === 0 || (now || '').indexOf('browsergym_id') === 0;
    }
    if (name === 'value' && typeof el.value === 'string') return now === el.value && harnessMarked(el);
    if (name === 'checked' && typeof el.checked === 'boolean') return (now !== null) === el.checked && harnessMarked(el);
    return false;
  }

  function harnessMarked(el) {
    return el.hasAttribute('bid') || el.hasAttribute('browsergym_visibility_ratio');
  }

  function emitDomChange() {
    domTimer = null;
    var m = mutations;
    mutations = { added: 0, removed: 0, attributes: 0 };
    if (!m.added && !m.removed && !m.attributes) return;
    lastDomChangeAt = Date.now();
    record('dom_change', null, { added: Math.min(m.added, MAX_COUNT), removed: Math.min(m.removed, MAX_COUNT), attributes: Math.min(m.attributes, MAX_COUNT) });
  }

  // ------------------------------------------------------------------------------------ iframes
  // Same-origin frames get the same listeners as the top window; their events carry frame_xpath,
  // the chain of iframe XPaths from the top document. A frame we cannot enter (another origin,
  // sandboxed) is reported once as a frame_gap with the iframe's XPath.
  var attachedDocs = new WeakSet(), gapped = new WeakSet();
  var opts = { capture: true, passive: true };

  function chainFor(frameEl) {
    var parentChain = frameChains.get(frameEl.ownerDocument);
    if (parentChain === undefined) return null; // the frame's parent is not recorded
    var own = xpathOf(frameEl);
    if (!own) return null;
    return parentChain ? parentChain + FRAME_SEP + own : own;
  }

  function enterFrame(frameEl) {
    var doc = null;
    try { doc = frameEl.contentDocument; } catch (e) { doc = null; }
    if (!doc) {
      if (!gapped.has(frameEl) && frameEl.isConnected) {
        gapped.add(frameEl);
        record('frame_gap', frameEl, {});
      }
      return;
    }
    var chain = chainFor(frameEl);
    if (chain !== null) attachDocument(doc.defaultView, chain);
  }

  function onFrameLoad(e) {
    var t = e.target;
    if (t && (t.localName === 'iframe' || t.localName === 'frame')) enterFrame(t);
  }

  function scanFrames(doc) {
    var frames = doc.querySelectorAll('iframe,frame');
    for (var i = 0; i < frames.length; i++) enterFrame(frames[i]);
  }

  function attachDocument(win, chain) {
    var doc;
    try { doc = win.document; } catch (e) { return; }
    if (!doc || attachedDocs.has(doc)) return;
    if (!/^(https?|file|about):$/.test(win.location.protocol)) return;
    if (win.location.href === 'about:blank' && win !== w) return; // the empty document before the frame's page
    attachedDocs.add(doc);
    frameChains.set(doc, chain);
    if (win !== w) {
      wrapAttachShadow(win);
      if (observer) observer.observe(doc, { childList: true, subtree: true, attributes: true, attributeOldValue: true });
      docScrolls.set(doc, { x: win.scrollX || 0, y: win.scrollY || 0 });
    }
    if (typeObserver) typeObserver.observe(doc, TYPE_OPTIONS);
    ['click', 'dblclick', 'contextmenu', 'mousedown'].forEach(function (t) { win.addEventListener(t, onPointer, opts); });
    ['dragstart', 'drop'].forEach(function (t) { win.addEventListener(t, onDrag, opts); });
    win.addEventListener('keydown', onKeydown, opts);
    win.addEventListener('input', onValue, opts);
    win.addEventListener('change', onValue, opts);
    win.addEventListener('submit', onSubmit, opts);
    win.addEventListener('scroll', onScroll, opts);
    win.addEventListener('mousemove', onMove, opts);
    win.addEventListener('focus', onFocus, opts);
    win.addEventListener('blur', onFocus, opts);
    win.addEventListener('select', onFieldSelect, opts);
    win.addEventListener('mouseup', onSelectionEnd, opts);
    win.addEventListener('keyup', onSelectionEnd, opts);
    // An iframe's load event does not bubble, and a load event never reaches the window: capture it on the document.
    doc.addEventListener('load', onFrameLoad, opts);
    if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', function () { scanFrames(doc); }, opts);
    else scanFrames(doc);
  }

  // A recorder copy inside a same-origin frame hands its window over (see the top of this file).
  try {
    Object.defineProperty(w, ADOPT, {
      value: function (win) {
        try {
          var frameEl = win.frameElement;
          if (!frameEl) return;
          var chain = chainFor(frameEl);
          if (chain !== null) attachDocument(win, chain);
        } catch (e) { /* not ours to enter */ }
      }
    });
  } catch (e) { /* defined already */ }

  // ------------------------------------------------------------------------------------ frames
  function utf8Length(s) {
    // eslint-disable-next-line no-control-regex
    return /^[\x00-\x7f]*$/.test(s) ? s.length : new Blob([s]).size;
  }

  // A frame refused as too large (close 1009, or `frame_too_large` over HTTP: a server or proxy
  // with a smaller limit than ours) is never sent again as it was: the budget drops below it,
  // so the same events go out split in smaller frames. One event alone always fits (strings are
  // clipped above), so halving ends at frames that pass. A server that refuses a message closes
  // at once, and the TCP reset can swallow its close frame (the page sees 1006, not 1009): a
  // connection lost with a large frame in flight shrinks the budget too, but not below
  // SUSPECT_BYTES, so that network blips cannot shrink frames to nothing.
  var frameBudget = FRAME_BYTES, SUSPECT_BYTES = 16 * 1024;

  function shrinkFrames(refusedBytes, floor) {
    frameBudget = Math.max(floor, Math.floor(Math.min(frameBudget, refusedBytes || frameBudget) / 2));
    if (w.console) console.warn('humantrace recorder: a frame of ' + refusedBytes + ' bytes was refused as too large; sending frames of at most ' + frameBudget + ' bytes');
  }

  // JSON text of a batch holding the unacked events with seq > afterSeq, within the byte budget.
  function buildFrame(afterSeq, budget, withToken) {
    var parts = [], size = 100, last = afterSeq;
    var events = state.events;
    for (var i = 0; i < events.length && parts.length < FRAME_EVENTS; i++) {
      if (events[i].seq <= afterSeq) continue;
      var text = JSON.stringify(events[i]);
      var n = utf8Length(text) + 1;
      if (parts.length && size + n > budget) break;
      parts.push(text);
      size += n;
      last = events[i].seq;
    }
    if (!parts.length) return null;
    // Over the socket the tab is named once, in its URL; an HTTP frame names it itself.
    var head = '{"type":"batch",' + (withToken ? '"token":' + JSON.stringify(token) + ',"tab":"' + state.tab + '",' : '') + '"events":[';
    var text = head + parts.join(',') + ']}';
    return { text: text, last: last, bytes: utf8Length(head) + (size - 100) + 1 };
  }

  function metaFrame() {
    return JSON.stringify({
      type: 'meta', tab: state.tab, user_agent: clip(navigator.userAgent, MAX_UA),
      viewport_w: pixels(w.innerWidth), viewport_h: pixels(w.innerHeight),
      screen_w: pixels(w.screen && w.screen.width), screen_h: pixels(w.screen && w.screen.height)
    });
  }

  function hasUnsent(afterSeq) { return state.events.length > 0 && state.events[state.events.length - 1].seq > afterSeq; }

  function onAck(seq) {
    if (typeof seq !== 'number') return;
    if (seq >= state.next) {
      // The server holds more than this tab ever numbered in its stream (storage lost): renumber
      // what is pending after it instead of letting it pass as duplicates.
      for (var i = 0; i < state.events.length; i++) state.events[i].seq = seq + 1 + i;
      state.next = seq + 1 + state.events.length;
      state.acked = seq;
      persist();
      return;
    }
    if (seq <= state.acked) return;
    state.acked = seq;
    var keep = 0;
    while (keep < state.events.length && state.events[keep].seq <= seq) keep++;
    state.events.splice(0, keep);
    persist();
  }

  function stop(reason) {
    if (stopped) return;
    stopped = true;
    clearTimeout(flushTimer);
    if (socket) { try { socket.close(1000); } catch (e) { /* already closed */ } }
    if (w.console) console.warn('humantrace recorder stopped: ' + reason);
  }

  // ------------------------------------------------------------------------------------ transport
  var socket = null, ready = false, sentUpTo = -1, inFlight = [];
  var failures = 0, reconnectTimer = null, leaving = false;
  var httpBusy = false, httpNextTry = 0, retryTimer = null;

  function backoff(n) {
    var delay = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * Math.pow(2, Math.min(n, 10)));
    return delay / 2 + Math.random() * delay / 2;
  }

  function socketReady() { return ready && socket && socket.readyState === 1; }

  function connect() {
    if (stopped || leaving || socket || checking) return;
    var ws;
    try {
      ws = new WebSocket(SOCKET_URL + state.tab);
    } catch (e) { // no websockets here (blocked, or not available): counts as a failed attempt
      failures++;
      scheduleReconnect();
      tryHttp();
      return;
    }
    socket = ws;
    ready = false;
    inFlight = [];
    ws.onmessage = function (m) {
      var msg;
      try { msg = JSON.parse(m.data); } catch (e) { return; }
      if (!ready) { // the server's first frame: the current ack (or why the token is refused)
        if (msg.type !== 'ack') { handleReply(msg, { kind: 'batch' }); return; }
        ready = true;
        failures = 0;
        onAck(msg.seq);
        sentUpTo = state.acked;
        if (!state.meta) { ws.send(metaFrame()); inFlight.push({ kind: 'meta' }); }
        pump();
        return;
      }
      var sent = inFlight.shift() || { kind: 'batch' };
      handleReply(msg, sent);
    };
    ws.onclose = function (e) {
      var unacked = inFlight;
      if (socket === ws) { socket = null; ready = false; inFlight = []; }
      if (e.code === 1008) { stop(e.reason || 'the server refused the recorder token'); return; }
      var largest = Math.max.apply(null, [0].concat(unacked.map(function (f) { return f.bytes || 0; })));
      if (e.code === 1009) { // message too big: one of the frames in flight; resend them all smaller
        shrinkFrames(largest, 1);
        scheduleReconnect();
        return;
      }
      if (e.code !== 1000 && e.code !== 1001 && largest > SUSPECT_BYTES) shrinkFrames(largest, SUSPECT_BYTES);
      failures++;
      scheduleReconnect();
      tryHttp();
    };
    ws.onerror = function () { /* onclose follows */ };
  }

  function scheduleReconnect() {
    if (stopped || leaving || reconnectTimer) return;
    reconnectTimer = setTimeout(function () { reconnectTimer = null; connect(); }, backoff(failures));
  }

  function handleReply(msg, sent) {
    if (msg.type === 'ack') {
      if (sent.kind === 'meta') state.meta = true;
      onAck(msg.seq);
      return;
    }
    if (msg.type !== 'error') return;
    if (msg.code === 'token_invalid' || msg.code === 'recording_ended' || msg.code === 'too_many_streams') { stop(msg.message); return; }
    if (msg.code === 'gap') { onAck(msg.seq); sentUpTo = state.acked; pump(); return; }
    if (sent.kind === 'meta') { state.meta = true; persist(); return; } // context only: do not retry
    if (msg.code === 'frame_too_large') { shrinkFrames(sent.bytes, 1); sentUpTo = state.acked; pump(); return; }
    // Any other refusal: resend everything unacked later, with backoff (a bug shows up in the console).
    if (w.console) console.error('humantrace recorder: server refused a batch (' + msg.code + '): ' + msg.message);
    sentUpTo = state.acked;
    failures++;
    if (!retryTimer) retryTimer = setTimeout(function () { retryTimer = null; pump(); }, backoff(failures));
  }

  function pump() {
    if (stopped) return;
    if (!socketReady()) { if (!socket && !reconnectTimer) connect(); tryHttp(); return; }
    if (retryTimer) return;
    var frame;
    while ((frame = buildFrame(sentUpTo, frameBudget, false))) {
      socket.send(frame.text);
      inFlight.push({ kind: 'batch', last: frame.last, bytes: frame.bytes });
      sentUpTo = frame.last;
    }
  }

  // HTTP fallback while the websocket cannot be opened (after two failures in a row).
  function tryHttp() {
    if (stopped || leaving || checking || httpBusy || failures < 2 || Date.now() < httpNextTry || !hasUnsent(state.acked)) return;
    var frame = buildFrame(state.acked, frameBudget, true);
    if (!frame) return;
    httpBusy = true;
    fetch(EVENTS_URL, { method: 'POST', body: frame.text, headers: { 'Content-Type': 'text/plain;charset=UTF-8' }, credentials: 'omit' })
      .then(function (r) { return r.json(); })
      .then(function (msg) {
        httpBusy = false;
        handleReply(msg, { kind: 'batch', last: frame.last, bytes: frame.bytes });
        if (msg.type === 'ack') { httpNextTry = 0; if (!socketReady()) setTimeout(tryHttp, 0); }
      }, function () {
        httpBusy = false;
        httpNextTry = Date.now() + backoff(failures);
      });
  }

  // At unload the socket may never flush: hand what is pending to the browser to deliver.
  function beacon() {
    var frame = buildFrame(state.acked, Math.min(BEACON_BYTES, frameBudget), true);
    if (!frame) return;
    var sent = false;
    try { sent = !!(navigator.sendBeacon && navigator.sendBeacon(EVENTS_URL, frame.text)); } catch (e) { sent = false; }
    if (!sent) {
      try {
        fetch(EVENTS_URL, { method: 'POST', body: frame.text, keepalive: true, headers: { 'Content-Type': 'text/plain;charset=UTF-8' }, credentials: 'omit' });
      } catch (e) { /* nothing more can be done during unload */ }
    }
  }

  function flush() {
    unflushed = 0;
    persist();
    pump();
  }

  function scheduleFlush(delay) {
    if (delay === 0) {
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = setTimeout(function () { flushTimer = null; flush(); }, 0);
    } else if (!flushTimer) {
      flushTimer = setTimeout(function () { flushTimer = null; flush(); }, delay);
    }
  }

  function onPageHide() {
    checkWatched();
    recordNav('unload');
    unflushed = 0;
    persist();
    beacon();
    leaving = true;
    if (socket) { try { socket.close(1000); } catch (e) { /* closing anyway */ } }
    socket = null;
    ready = false;
  }

  function onPageShow(e) {
    if (!e.persisted) return; // a normal load already started below
    state = loadState(); // another page of this tab may have recorded since
    startNext = state.next;
    leaving = false;
    recordNav('load');
    connect();
  }

  // ------------------------------------------------------------------------------------ tabs
  // A tab opened as a copy of this one (duplicate tab, window.open with an opener) starts with a
  // copy of its sessionStorage, stream key included. Before sending anything, a page whose state
  // came from storage asks the other live pages of this token whether one of them holds that key;
  // if one does, this page becomes a new stream, keeping only the events it recorded itself.
  var CLAIM_MS = 150;
  var pageId = newTabId(), checking = false, channel = null, startNext = state.next;
  try { channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(STORAGE_KEY) : null; } catch (e) { channel = null; }

  function becomeNewStream() {
    var own = [];
    for (var i = 0; i < state.events.length; i++) if (state.events[i].seq >= startNext) own.push(state.events[i]);
    state = freshState();
    for (var j = 0; j < own.length; j++) own[j].seq = j;
    state.events = own;
    state.next = own.length;
    persist();
  }

  if (channel) {
    channel.onmessage = function (m) {
      var d = m.data || {};
      if (d.hello && d.hello === state.tab && d.page !== pageId && !leaving && !stopped) channel.postMessage({ taken: d.hello, page: d.page });
      else if (d.taken && d.taken === state.tab && d.page === pageId && checking) becomeNewStream();
    };
  }

  // ------------------------------------------------------------------------------------ start
  if (typeof MutationObserver === 'function') observer = new MutationObserver(countMutations);
  if (observer) observer.observe(document, { childList: true, subtree: true, attributes: true, attributeOldValue: true });
  wrapAttachShadow(w);
  attachDocument(w, '');
  w.addEventListener('popstate', function () { recordNav('popstate'); }, opts);
  w.addEventListener('hashchange', function () { recordNav('hashchange'); }, opts);
  w.addEventListener('resize', onResize, opts);
  w.addEventListener('pagehide', onPageHide, opts);
  w.addEventListener('pageshow', onPageShow, opts);
  w.addEventListener('online', function () { if (!socket) connect(); }, opts);
  document.addEventListener('visibilitychange', onVisibility, opts);
  setInterval(checkWatched, 500); // scripted values that no later event reveals (a date picker, then idle)

  recordNav('load');
  if (restored && channel) {
    checking = true;
    channel.postMessage({ hello: state.tab, page: pageId });
    setTimeout(function () { checking = false; connect(); }, CLAIM_MS);
  } else {
    connect();
  }

  if (debug) {
    w.__humantraceRecorder = {
      flush: flush,
      pending: function () { return state.events.length; },
      acked: function () { return state.acked; },
      next: function () { return state.next; },
      tab: function () { return state.tab; }
    };
  }
})();
