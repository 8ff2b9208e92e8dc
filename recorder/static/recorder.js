/*
 * humantrace recorder: streams the DOM events a person makes on this page to the humantrace server.
 * One self-contained file, no dependencies, no build step. Docs: docs/recorder.md.
 *
 * Configuration, first found wins:
 *   window.HUMANTRACE_RECORDER = {token, server, maskAllText, mousemoveSampleMs, debug}
 *   <script src=".../recorder/recorder.js" data-token data-server data-mask-all data-mousemove-ms data-debug>
 *
 * Guarantees: every event gets a contiguous `seq` (kept in sessionStorage across navigations and
 * reloads in this tab); unacknowledged events stay in sessionStorage until the server acknowledges
 * them, and are resent after reconnects, reloads and server restarts. The server drops duplicates.
 */
(function () {
  'use strict';

  var w = window;
  if (w.top !== w) return; // record the top document only
  if (!/^(https?|file):$/.test(location.protocol)) return; // not about:blank and the like
  var MARK = typeof Symbol === 'function' ? Symbol.for('humantrace.recorder') : '__humantrace_recorder';
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

  var token = first([globalConfig.token, data.token], '');
  if (!token) {
    if (w.console) console.warn('humantrace recorder: no token configured; not recording');
    return;
  }
  var server = String(first([globalConfig.server, data.server], location.origin)).replace(/\/+$/, '');
  var maskAll = globalConfig.maskAllText === true || data.maskAll === 'true';
  var moveMs = Number(first([globalConfig.mousemoveSampleMs, data.mousemoveMs], 100));
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
  var SOCKET_URL = server.replace(/^http/, 'ws') + '/recorder/ws?token=' + encodeURIComponent(token);

  // ------------------------------------------------------------------------------------ state
  // {next: next seq to assign, acked: highest seq the server holds contiguously, events: unacked, meta: sent}
  var state;

  function loadState() {
    var stored = null;
    try { stored = JSON.parse(w.sessionStorage.getItem(STORAGE_KEY) || 'null'); } catch (e) { stored = null; }
    if (stored && typeof stored.next === 'number' && typeof stored.acked === 'number' && stored.events instanceof Array) {
      return stored;
    }
    return { next: 0, acked: -1, events: [], meta: false };
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

  function isPassword(el) {
    if (!el || el.localName !== 'input') return false;
    return el.type === 'password' || /password/i.test(el.getAttribute('autocomplete') || '');
  }

  function isTextual(el) {
    if (!el || el.nodeType !== 1) return false;
    if (el.localName === 'textarea' || el.isContentEditable) return true;
    return el.localName === 'input' && !NON_TEXT_INPUTS[el.type];
  }

  function masks(el) { return isPassword(el) || (maskAll && isTextual(el)); }

  function maskText(s) { return new Array(s.length + 1).join('*'); }

  function isPrintable(key) {
    return key.length === 1 || (key.length === 2 && key.charCodeAt(0) >= 0xd800 && key.charCodeAt(0) <= 0xdbff);
  }

  // ------------------------------------------------------------------------------------ xpath
  var HTML_NS = 'http://www.w3.org/1999/xhtml';
  var xpathCache = new WeakMap();
  var observer = null;

  function step(el) {
    var name = el.localName, ns = el.namespaceURI, index = 1;
    for (var sib = el.previousElementSibling; sib; sib = sib.previousElementSibling) {
      if (sib.localName === name && sib.namespaceURI === ns) index++;
    }
    if (ns === HTML_NS) {
      if ((name === 'body' || name === 'head') && el.parentNode === document.documentElement) return name;
      return name + '[' + index + ']';
    }
    return "*[local-name()='" + name + "'][" + index + ']';
  }

  // Absolute XPath that document.evaluate resolves back to the element; null outside the document
  // (detached, or inside a shadow root: events from shadow DOM are retargeted to the host anyway).
  function xpathOf(node) {
    if (!node) return null;
    if (node === document || node === w || node === document.documentElement) return '/html';
    if (node.nodeType === 3) node = node.parentNode;
    if (!node || node.nodeType !== 1 || !node.isConnected || node.getRootNode() !== document) return null;
    if (observer) countMutations(observer.takeRecords()); // so the cache below is never stale
    var cached = xpathCache.get(node);
    if (cached) return cached;
    var parts = [];
    for (var el = node; el && el.nodeType === 1 && el !== document.documentElement; el = el.parentNode) {
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

  function record(type, target, fields) {
    if (stopped) return;
    var event = { type: type, seq: state.next++, t_ms: Date.now(), xpath: target === null ? null : xpathOf(target), url: clip(location.href, MAX_URL) };
    for (var k in fields) event[k] = fields[k];
    state.events.push(event);
    unflushed++;
    scheduleFlush(unflushed >= FLUSH_EVENTS ? 0 : FLUSH_MS);
  }

  function elementTarget(e) {
    var t = e.target;
    return t && (t.nodeType === 1 || t.nodeType === 3 || t === document) ? t : null;
  }

  function onPointer(e) {
    var t = elementTarget(e);
    if (t) record(e.type, t, { x: round(e.clientX), y: round(e.clientY) });
  }

  function onKeydown(e) {
    var t = elementTarget(e) || document.body;
    var key = typeof e.key === 'string' && e.key ? e.key : 'Unidentified';
    if (isPrintable(key) && (isPassword(t) || maskAll)) key = '*';
    record('keydown', t, { key: clip(key, MAX_KEY) });
  }

  function valueOf(el) {
    if (!el || el.nodeType !== 1) return null;
    var value;
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked ? 'true' : 'false';
    if (el.localName === 'input' || el.localName === 'textarea' || el.localName === 'select') value = el.value;
    else if (el.isContentEditable) value = el.textContent;
    else return null;
    value = String(value === undefined || value === null ? '' : value);
    return clip(masks(el) ? maskText(value) : value, MAX_VALUE);
  }

  function onValue(e) {
    var t = elementTarget(e);
    if (t) record(e.type, t, { value: valueOf(t) });
  }

  function onSubmit(e) {
    var t = elementTarget(e);
    if (t) record('submit', t, {});
  }

  function onFocus(e) {
    var t = e.target;
    if (t && t.nodeType === 1) record(e.type, t, {});
  }

  // scroll: one stream per container; dx/dy against that container's previous recorded position
  var lastScroll = new WeakMap();
  var docScroll = { x: w.scrollX || 0, y: w.scrollY || 0 };

  function onScroll(e) {
    var t = e.target, pos, prev, target;
    if (t === document || t === document.documentElement || (t === document.body && document.scrollingElement === t)) {
      pos = { x: w.scrollX, y: w.scrollY };
      prev = docScroll;
      docScroll = pos;
      target = document;
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
    if (!t || typeof t.selectionStart !== 'number') return;
    var text = String(t.value || '').slice(t.selectionStart, t.selectionEnd);
    if (!text) return;
    record('select', t, { value: clip(masks(t) ? maskText(text) : text, MAX_VALUE) });
  }

  function checkPageSelection() {
    var sel = document.getSelection ? document.getSelection() : null;
    if (!sel || sel.isCollapsed || sel.rangeCount === 0) { lastSelection = ''; return; }
    var active = document.activeElement;
    if (active && (active.localName === 'input' || active.localName === 'textarea')) return; // the select event covers fields
    var text = sel.toString();
    if (!text || text === lastSelection) return;
    lastSelection = text;
    var node = sel.getRangeAt(0).commonAncestorContainer;
    var el = node.nodeType === 1 ? node : node.parentNode;
    record('select', el, { value: clip(masks(el) ? maskText(text) : text, MAX_VALUE) });
  }

  function onSelectionEnd() { setTimeout(checkPageSelection, 0); }

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
    var counting = document.readyState !== 'loading'; // the parser building the page is not a change
    for (var i = 0; i < records.length; i++) {
      var r = records[i];
      if (r.type === 'childList') {
        xpathCache = new WeakMap(); // sibling indices may have changed
        if (!counting) continue;
        mutations.added += r.addedNodes.length;
        mutations.removed += r.removedNodes.length;
      } else if (r.type === 'attributes' && counting && !harnessWrite(r)) {
        mutations.attributes += 1;
      }
    }
    if (counting && !domTimer) {
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
    var head = '{"type":"batch",' + (withToken ? '"token":' + JSON.stringify(token) + ',' : '') + '"events":[';
    var text = head + parts.join(',') + ']}';
    return { text: text, last: last, bytes: utf8Length(head) + (size - 100) + 1 };
  }

  function metaFrame() {
    return JSON.stringify({
      type: 'meta', user_agent: clip(navigator.userAgent, MAX_UA),
      viewport_w: pixels(w.innerWidth), viewport_h: pixels(w.innerHeight),
      screen_w: pixels(w.screen && w.screen.width), screen_h: pixels(w.screen && w.screen.height)
    });
  }

  function hasUnsent(afterSeq) { return state.events.length > 0 && state.events[state.events.length - 1].seq > afterSeq; }

  function onAck(seq) {
    if (typeof seq !== 'number') return;
    if (seq >= state.next) {
      // The server holds more than this tab ever numbered (storage lost, or the token reused in a
      // new tab): renumber what is pending after it instead of letting it pass as duplicates.
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
    if (stopped || leaving || socket) return;
    var ws;
    try {
      ws = new WebSocket(SOCKET_URL);
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
    if (msg.code === 'token_invalid' || msg.code === 'recording_ended') { stop(msg.message); return; }
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
    if (stopped || leaving || httpBusy || failures < 2 || Date.now() < httpNextTry || !hasUnsent(state.acked)) return;
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
    leaving = false;
    recordNav('load');
    connect();
  }

  // ------------------------------------------------------------------------------------ start
  var opts = { capture: true, passive: true };
  ['click', 'dblclick', 'contextmenu'].forEach(function (t) { w.addEventListener(t, onPointer, opts); });
  w.addEventListener('keydown', onKeydown, opts);
  w.addEventListener('input', onValue, opts);
  w.addEventListener('change', onValue, opts);
  w.addEventListener('submit', onSubmit, opts);
  w.addEventListener('scroll', onScroll, opts);
  w.addEventListener('mousemove', onMove, opts);
  w.addEventListener('focus', onFocus, opts);
  w.addEventListener('blur', onFocus, opts);
  w.addEventListener('select', onFieldSelect, opts);
  w.addEventListener('mouseup', onSelectionEnd, opts);
  w.addEventListener('keyup', onSelectionEnd, opts);
  w.addEventListener('popstate', function () { recordNav('popstate'); }, opts);
  w.addEventListener('hashchange', function () { recordNav('hashchange'); }, opts);
  w.addEventListener('resize', onResize, opts);
  w.addEventListener('pagehide', onPageHide, opts);
  w.addEventListener('pageshow', onPageShow, opts);
  w.addEventListener('online', function () { if (!socket) connect(); }, opts);
  document.addEventListener('visibilitychange', onVisibility, opts);
  if (typeof MutationObserver === 'function') {
    observer = new MutationObserver(countMutations);
    observer.observe(document, { childList: true, subtree: true, attributes: true, attributeOldValue: true });
  }

  recordNav('load');
  connect();

  if (debug) {
    w.__humantraceRecorder = {
      flush: flush,
      pending: function () { return state.events.length; },
      acked: function () { return state.acked; },
      next: function () { return state.next; }
    };
  }
})();
