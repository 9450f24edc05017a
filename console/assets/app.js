// The stockade operator console. Plain JavaScript, no build step: the
// page talks to the public HTTP API with the operator's key and keeps
// itself current from the event stream. See the package doc of console.

// ---- small helpers ---------------------------------------------------------

// el builds an element: props sets attributes (on* keys add listeners,
// "text" sets the text), children are nodes or strings (as text, never
// as HTML).
function el(tag, props = {}, ...children) {
  return fill(document.createElement(tag), props, children);
}

// svgEl builds an SVG element as el builds an HTML one.
function svgEl(tag, props = {}, ...children) {
  return fill(document.createElementNS('http://www.w3.org/2000/svg', tag), props, children);
}

// refill replaces the children of e, given as el's are.
function refill(e, ...children) {
  e.replaceChildren();
  return fill(e, {}, children);
}

// fill sets the props of e and appends its children, for el and svgEl.
function fill(e, props, children) {
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const fmtInt = new Intl.NumberFormat('en');
const num = (n) => fmtInt.format(n);

function fmtTime(s) {
  if (!s) return '';
  // Swedish writes dates as ISO 8601 does: 2026-11-27 13:32:06.
  return new Date(s).toLocaleString('sv-SE');
}

// fmtSpan says how long a seconds are, as "1h 5m", "4m 10s", "10m" or
// "45s".
function fmtSpan(a) {
  if (a < 60) return `${Math.floor(a)}s`;
  const [big, small, units] = a >= 3600 ? [a / 3600, a % 3600 / 60, 'hm'] : [a / 60, a % 60, 'ms'];
  return `${Math.floor(big)}${units[0]}${Math.floor(small) ? ` ${Math.floor(small)}${units[1]}` : ''}`;
}

// fmtIn says how long until time s, as "in 4m 10s" or "2m ago".
function fmtIn(s) {
  const ms = new Date(s) - Date.now();
  const t = fmtSpan(Math.abs(ms) / 1000);
  return ms >= 0 ? `in ${t}` : `${t} ago`;
}

const linesText = (lines) => (lines || []).map((l) => `${l.quantity} × ${l.sku}${l.location ? '@' + l.location : ''}`).join(', ');

// debounce runs fn at most once per ms, after the last call's burst.
function debounce(fn, ms) {
  let t = null;
  const d = (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
  d.cancel = () => clearTimeout(t);
  return d;
}

// coalesce runs the async fn soon after each call, but at most once per
// ms and never twice at once: the calls that come while fn waits or runs
// make one run after it. Unlike debounce it keeps running during a burst
// that does not pause, and the last call of a burst is always followed
// by a run that starts after it.
function coalesce(fn, ms) {
  let timer = null, running = false, again = false, stopped = false, last = -Infinity;
  const run = async () => {
    timer = null;
    running = true;
    again = false;
    last = Date.now();
    try {
      await fn();
    } finally {
      running = false;
      if (again && !stopped) c();
    }
  };
  const c = () => {
    if (stopped) return;
    if (running) { again = true; return; }
    if (!timer) timer = setTimeout(run, Math.max(0, last + ms - Date.now()));
  };
  c.cancel = () => { stopped = true; clearTimeout(timer); };
  return c;
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

// ---- the API ---------------------------------------------------------------

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const session = {
  key: sessionStorage.getItem('stockade.key') || '',
  role: sessionStorage.getItem('stockade.role') || '',
  get admin() { return this.role === 'admin'; },
};

// api calls the service and returns the decoded answer, or throws an
// ApiError whose message says what went wrong in words for a person.
async function api(path, { method = 'GET', body, idempotent = false, key = session.key, signal } = {}) {
  const headers = { Authorization: `Bearer ${key}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotent) headers['Idempotency-Key'] = crypto.randomUUID();
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, cache: 'no-store' });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError(0, 'unreachable', 'The service does not answer: is it running, and is this machine online?');
  }
  const text = await res.text();
  let v = null;
  try { v = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (res.ok) return v;
  const detail = v?.detail || v?.title || res.statusText;
  switch (res.status) {
    case 401:
      throw new ApiError(401, 'unauthorized', 'The service refused the key: it is unknown, mistyped or revoked.');
    case 403:
      throw new ApiError(403, 'forbidden', `This key's role may not do that (${detail}).`);
    case 429:
      throw new ApiError(429, 'rate_limited', `Too many requests for this key: try again in ${res.headers.get('Retry-After') || 'a few'} seconds.`);
  }
  throw new ApiError(res.status, v?.code || String(res.status), detail || `HTTP ${res.status}`);
}

// pages reads every page of a list, at most max items.
async function pages(path, field, max = 10000, signal = undefined) {
  const out = [];
  let cursor = '';
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const v = await api(cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path, { signal });
    out.push(...(v[field] || []));
    cursor = v.next_cursor;
    if (!cursor || out.length >= max) return { items: out, more: !!cursor };
  }
}

// ---- the event stream ------------------------------------------------------

// Feed reads GET /v1/events/stream with fetch (EventSource cannot send
// the key in a header), from the end of the feed on, and hands each event
// to its listeners. When the stream drops it reconnects, with the id of
// the last event it handed out as Last-Event-ID, so no event is missed or
// handed out twice.
class Feed {
  constructor(key) {
    this.key = key;
    this.cursor = '';
    this.listeners = new Set();
    this.recent = []; // the latest events, newest last
    this.abort = new AbortController();
    this.state = '';
  }

  on(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  setState(s, why = '') {
    this.state = s;
    const live = document.getElementById('live');
    live.textContent = { live: 'live', connecting: 'connecting…', reconnecting: 'reconnecting…' }[s] || s;
    live.dataset.state = s;
    live.title = why;
  }

  stop() { this.abort.abort(); }

  async run() {
    let backoff = 250;
    this.setState('connecting');
    while (!this.abort.signal.aborted) {
      try {
        await this.connect();
        backoff = 250; // it was up: the next drop starts the backoff afresh
      } catch (e) {
        if (this.abort.signal.aborted) return;
        if (e instanceof ApiError && e.status === 401) {
          signOut('The service refused the key: it is unknown, mistyped or revoked.');
          return;
        }
        this.setState('reconnecting', e.message);
      }
      if (this.abort.signal.aborted) return;
      this.setState('reconnecting');
      await sleep(backoff, this.abort.signal);
      backoff = Math.min(backoff * 2, 5000);
    }
  }

  async connect() {
    const headers = { Authorization: `Bearer ${this.key}` };
    let url = '/v1/events/stream?after=latest';
    if (this.cursor) {
      url = '/v1/events/stream';
      headers['Last-Event-ID'] = this.cursor;
    }
    const res = await fetch(url, { headers, signal: this.abort.signal, cache: 'no-store' }).catch((e) => {
      throw new ApiError(0, 'unreachable', `The service does not answer (${e.message}).`);
    });
    if (!res.ok) {
      const v = await res.json().catch(() => null);
      throw new ApiError(res.status, v?.code || '', v?.detail || `HTTP ${res.status}`);
    }
    this.setState('live');
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value.replaceAll('\r\n', '\n');
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        this.frame(buf.slice(0, i));
        buf = buf.slice(i + 2);
      }
    }
  }

  // frame handles one Server-Sent Event: its id, type and data lines.
  frame(text) {
    let id = '', type = 'message';
    const data = [];
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const c = line.indexOf(':');
      const field = c < 0 ? line : line.slice(0, c);
      let value = c < 0 ? '' : line.slice(c + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'id') id = value;
      else if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) return;
    if (type === 'error') throw new ApiError(503, 'stream', data.join('\n'));
    const ev = JSON.parse(data.join('\n'));
    if (id) this.cursor = id;
    this.recent.push(ev);
    if (this.recent.length > 500) this.recent.splice(0, this.recent.length - 500);
    for (const fn of this.listeners) {
      try { fn(ev); } catch (e) { console.error(e); }
    }
  }
}

let feed = null;

// ---- shell: sign-in, navigation, notices -----------------------------------

const main = () => document.getElementById('main');

function notice(message, kind = 'error') {
  const n = document.getElementById('notice');
  n.textContent = message;
  n.dataset.kind = kind;
  n.hidden = !message;
}

// guard runs an action of a page, showing what went wrong if it fails.
async function guard(fn) {
  try {
    notice('');
    return await fn();
  } catch (e) {
    if (e.name === 'AbortError') return undefined;
    if (e instanceof ApiError && e.status === 401 && session.key) {
      signOut(e.message);
      return undefined;
    }
    notice(e.message);
    return undefined;
  }
}

// poll runs the page's async fn at once and then again ms after each run
// ends, for as long as the page is open (until signal aborts) and the
// browser shows it: a tab in the background reads nothing, and one
// brought back reads at once. It returns the first run, for the page's
// first draw. Unlike guard it leaves the notice alone while fn succeeds,
// so that a refusal shown by an action stays; the error of a failed run
// shows until a run succeeds. fn returns false to stop.
function poll(fn, ms, signal) {
  let timer = null, running = false, shown = '', stopped = false;
  const run = async () => {
    timer = null;
    if (stopped || signal.aborted || document.hidden || running) return;
    running = true;
    try {
      if (await fn() === false) stopped = true;
      if (shown && document.getElementById('notice').textContent === shown) notice('');
      shown = '';
    } catch (e) {
      if (e.name === 'AbortError') return;
      if (e instanceof ApiError && e.status === 401 && session.key) {
        signOut(e.message);
        return;
      }
      shown = e.message;
      notice(shown);
    } finally {
      running = false;
    }
    if (!stopped && !signal.aborted && !document.hidden) timer = setTimeout(run, ms);
  };
  const shows = () => { if (!document.hidden && !timer) run(); };
  document.addEventListener('visibilitychange', shows);
  signal.addEventListener('abort', () => {
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', shows);
  }, { once: true });
  return run();
}

// whoAmI finds the key's role from what it may read: only an admin may
// list keys, and only an admin or a reader may read the event feed.
async function whoAmI(key) {
  try {
    await api('/v1/keys?limit=1', { key });
    return 'admin';
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 403) throw e;
  }
  try {
    await api('/v1/events?after=latest&limit=1', { key });
    return 'reader';
  } catch (e) {
    if (e instanceof ApiError && e.status === 403) {
      throw new ApiError(403, 'forbidden', 'The console needs an admin or a reader key; this one is a storefront key.');
    }
    throw e;
  }
}

// pendingNotice is shown by the next page drawn: signOut's reason.
let pendingNotice = '';

function signOut(message = '') {
  sessionStorage.removeItem('stockade.key');
  sessionStorage.removeItem('stockade.role');
  session.key = '';
  session.role = '';
  delete document.body.dataset.role;
  feed?.stop();
  feed = null;
  pendingNotice = message;
  if (location.hash === '#/login') route();
  else location.hash = '#/login'; // route() runs on the hashchange
}

function startSession() {
  document.querySelector('header.bar').hidden = false;
  document.getElementById('role').textContent = session.role;
  document.body.dataset.role = session.role;
  feed = new Feed(session.key);
  feed.run();
}

function loginPage(root) {
  document.querySelector('header.bar').hidden = true;
  const input = el('input', { id: 'key', name: 'key', type: 'password', autocomplete: 'off', required: true, placeholder: 'stk_…', spellcheck: 'false' });
  const button = el('button', { type: 'submit', text: 'Sign in' });
  const form = el('form', {
    class: 'login', 'aria-labelledby': 'login-title',
    onsubmit: async (e) => {
      e.preventDefault();
      button.disabled = true;
      const key = input.value.trim();
      await guard(async () => {
        const role = await whoAmI(key);
        session.key = key;
        session.role = role;
        sessionStorage.setItem('stockade.key', key);
        sessionStorage.setItem('stockade.role', role);
        startSession();
        location.hash = '#/';
      });
      button.disabled = false;
    },
  },
  el('h1', { id: 'login-title', text: 'stockade console' }),
  el('p', { text: 'Sign in with an admin or a reader API key (stockade keys create -role reader -name NAME).' }),
  el('label', { for: 'key', text: 'API key' }), input, button);
  root.append(form);
  input.focus();
}

// ---- pages -----------------------------------------------------------------

// Each page renders into root and returns a function that undoes what it
// started (feed listeners, timers); ctx.signal ends with the page.

function section(title, ...children) {
  return el('section', { 'aria-label': title }, el('h2', { text: title }), ...children);
}

// numeric are the columns of numbers, aligned right.
const numeric = new Set(['On hand', 'Reserved', 'Committed', 'Available', 'Version', 'Quantity', 'Capacity', 'Held', 'Booked',
  'Waiters', 'free', 'held', 'booked', 'blocked', 'Queued', 'Active / limit', 'Admitted', 'Admitted / min', 'Longest wait',
  'Stock free', 'Stock held']);

// table is a table with a header row over body: a tbody the caller
// keeps to redraw, or rows for a new one. It scrolls sideways on its own
// when the page is narrower than it.
function table(headers, body) {
  const tbody = body instanceof HTMLTableSectionElement ? body : el('tbody', {}, body);
  return el('div', { class: 'scroll' }, el('table', {},
    el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col', class: numeric.has(h) ? 'n' : null, text: h })))),
    tbody));
}

// confirmDialog asks the question in a modal dialog and resolves to
// whether the operator confirmed.
function confirmDialog(question, action) {
  return new Promise((resolve) => {
    const d = el('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-q' },
      el('p', { id: 'confirm-q', text: question }),
      el('form', { method: 'dialog' },
        el('button', { value: 'cancel', text: 'Cancel' }),
        el('button', { value: 'ok', class: 'danger', text: action })));
    d.addEventListener('close', () => { d.remove(); resolve(d.returnValue === 'ok'); });
    document.body.append(d);
    d.showModal();
  });
}

// -- overview

async function overviewPage(root, ctx) {
  const orders = el('strong', { id: 'orders-rate', text: '0' });
  const p99 = el('strong', { id: 'p99', text: '–' });
  const p99Label = el('span', { text: 'p99 of writes, since the service started' });
  // The relay's lag to its broker (JetStream or Kafka), shown only when
  // the service relays events: /metrics has it then.
  const relayLag = el('strong', { id: 'relay-lag', text: '–' });
  const relayCard = el('div', { class: 'card', id: 'relay-card' }, el('span', { text: 'Event relay lag' }), relayLag);
  relayCard.hidden = true;
  const oos = el('ul', { id: 'out-of-stock' });
  const expiring = el('tbody', {});
  const stuck = el('tbody', {});
  const skuCount = el('strong', { id: 'sku-count', text: '…' });
  const available = el('strong', { id: 'available-total', text: '…' });
  root.append(el('h1', { text: 'Overview' }),
    el('div', { class: 'cards' },
      el('div', { class: 'card' }, el('span', { text: 'Orders / s (last 10 s)' }), orders),
      el('div', { class: 'card' }, p99Label, p99),
      relayCard,
      el('div', { class: 'card' }, el('span', { text: 'SKUs' }), skuCount),
      el('div', { class: 'card' }, el('span', { text: 'Available, all SKUs' }), available)),
    section('Out of stock', oos),
    section('Reservations expiring within 10 minutes', table(['Reservation', 'Lines', 'Expires'], expiring)),
    section('Stuck payments', table(['Payment', 'Target', 'Status', 'Since'], stuck)));

  // Stock: one read of the SKU list, then a re-read of each SKU that an
  // event says changed.
  const skus = new Map(); // sku → totals
  const drawStock = () => {
    skuCount.textContent = num(skus.size);
    let sum = 0;
    const out = [];
    for (const [sku, t] of skus) {
      sum += t.available;
      if (t.available <= 0) out.push(sku);
    }
    available.textContent = num(sum);
    out.sort();
    oos.replaceChildren(...(out.length ? out.map((s) => el('li', {}, el('a', { href: `#/stock/${encodeURIComponent(s)}`, text: s })))
      : [el('li', { class: 'muted', text: 'none' })]));
  };
  // At most 20 SKUs a second, to stay well inside the key's rate limit
  // when a sale moves many SKUs at once; the rest wait for the next round.
  const dirty = new Set();
  const refreshSKUs = debounce(() => guard(async () => {
    const list = [...dirty].slice(0, 20);
    for (const sku of list) {
      dirty.delete(sku);
      const v = await api(`/v1/stock/${encodeURIComponent(sku)}`, { signal: ctx.signal });
      skus.set(sku, v.totals);
    }
    drawStock();
    if (dirty.size) refreshSKUs();
  }), 1000);

  // Reservations: the held ones, kept current from their events.
  const held = new Map();
  const drawHeld = () => {
    const soon = [...held.values()].filter((r) => new Date(r.expires_at) - Date.now() < 10 * 60e3)
      .sort((a, b) => new Date(a.expires_at) - new Date(b.expires_at));
    expiring.replaceChildren(...(soon.length ? soon.map((r) => el('tr', {},
      el('td', {}, el('a', { href: `#/reservations/${r.id}`, text: r.id })),
      el('td', { text: linesText(r.lines) }),
      el('td', { text: fmtIn(r.expires_at) }))) : [el('tr', {}, el('td', { colspan: 3, class: 'muted', text: 'none' }))]));
  };

  const loadStuck = async () => {
    const v = await api('/v1/payments?stuck=true&limit=100', { signal: ctx.signal });
    stuck.replaceChildren(...(v.payments.length ? v.payments.map((p) => el('tr', {},
      el('td', { text: p.id }), el('td', { text: `${p.target?.kind} ${p.target?.id}` }),
      el('td', { text: p.status }), el('td', { text: fmtTime(p.updated_at || p.created_at) })))
      : [el('tr', {}, el('td', { colspan: 4, class: 'muted', text: 'none' }))]));
  };
  const refreshStuck = debounce(() => guard(loadStuck), 500);

  // Orders per second, from the feed.
  const committed = [];
  const offFeed = feed.on((ev) => {
    if (ev.type === 'order.committed') committed.push(Date.now());
    if (ev.aggregate === 'level') {
      dirty.add(ev.payload.sku);
      refreshSKUs();
    }
    if (ev.aggregate === 'reservation') {
      if (ev.payload.status === 'held') held.set(ev.payload.id, ev.payload);
      else held.delete(ev.payload.id);
      drawHeld();
    }
    if (ev.aggregate === 'payment') refreshStuck();
  });

  // Latency: the requests that change stock, from /metrics, over the
  // last interval (the difference between two reads of the histograms).
  let last = null;
  const readMetrics = async () => {
    const res = await fetch('/metrics', { cache: 'no-store', signal: ctx.signal });
    const text = await res.text();
    const h = writeHistogram(text);
    const lag = relayLagSeconds(text);
    relayCard.hidden = lag === null;
    if (lag !== null) relayLag.textContent = lag < 1 ? `${(lag * 1000).toFixed(0)} ms` : `${lag.toFixed(1)} s`;
    // The first read covers the service's life; the next ones, the time
    // since the read before.
    const q = quantile(h, last || new Map(), 0.99);
    p99Label.textContent = last ? 'p99 of writes, last 5 s' : 'p99 of writes, since the service started';
    p99.textContent = q === null ? 'no writes' : `${(q * 1000).toFixed(q < 0.01 ? 2 : 0)} ms`;
    last = h;
  };
  const tick = setInterval(() => {
    const now = Date.now();
    while (committed.length && committed[0] < now - 10e3) committed.shift();
    orders.textContent = (committed.length / 10).toFixed(1);
    drawHeld();
  }, 1000);
  const metricsTick = setInterval(() => readMetrics().catch(() => {}), 5000);

  await guard(async () => {
    const [list, res] = await Promise.all([
      pages('/v1/stock?limit=1000', 'skus', 10000),
      pages('/v1/reservations?status=held&limit=1000', 'reservations', 10000),
    ]);
    for (const s of list.items) if (!skus.has(s.sku)) skus.set(s.sku, s.totals);
    for (const r of res.items) held.set(r.id, r);
    drawStock();
    drawHeld();
    await loadStuck();
    await readMetrics();
  });
  return () => { offFeed(); clearInterval(tick); clearInterval(metricsTick); refreshSKUs.cancel(); refreshStuck.cancel(); };
}

// writeHistogram sums the request-duration buckets of the routes that
// change stock or seats (POST, PUT, DELETE), by upper bound.
function writeHistogram(text) {
  const buckets = new Map();
  const re = /^stockade_http_request_duration_seconds_bucket\{([^}]*)\} (\S+)$/;
  for (const line of text.split('\n')) {
    const m = re.exec(line);
    if (!m || !/method="(POST|PUT|DELETE)"/.test(m[1])) continue;
    const le = /le="([^"]+)"/.exec(m[1])[1];
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) || 0) + Number(m[2]));
  }
  return buckets;
}

// relayLagSeconds reads the age of the oldest event the relay has still
// to publish from the text of /metrics; null if the service relays no
// events.
function relayLagSeconds(text) {
  const m = /^stockade_events_relay_lag_seconds (\S+)$/m.exec(text);
  return m ? Number(m[1]) : null;
}

// quantile estimates the q-quantile of the requests counted between two
// reads of a cumulative histogram, as Prometheus's histogram_quantile
// does: linear within the bucket; null if there were none.
function quantile(now, before, q) {
  const bounds = [...now.keys()].sort((a, b) => a - b);
  const counts = bounds.map((b) => now.get(b) - (before.get(b) || 0));
  const total = counts[counts.length - 1] || 0;
  if (total <= 0) return null;
  const rank = q * total;
  let prevBound = 0, prevCount = 0;
  for (let i = 0; i < bounds.length; i++) {
    if (counts[i] >= rank) {
      if (bounds[i] === Infinity) return prevBound;
      return prevBound + (bounds[i] - prevBound) * (rank - prevCount) / Math.max(counts[i] - prevCount, 1);
    }
    prevBound = bounds[i];
    prevCount = counts[i];
  }
  return prevBound;
}

// -- stock

async function stockPage(root, ctx, [sku]) {
  if (sku) return skuPage(root, ctx, decodeURIComponent(sku));
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  const input = el('input', { id: 'sku-prefix', type: 'search', name: 'prefix', value: params.get('prefix') || '', placeholder: 'widget' });
  const body = el('tbody', {});
  const more = el('button', { type: 'button', text: 'Load more', hidden: true });
  const rows = new Map();
  let cursor = '';
  const row = (sku, t) => el('tr', { 'data-sku': sku },
    el('td', {}, el('a', { href: `#/stock/${encodeURIComponent(sku)}`, text: sku })),
    el('td', { class: 'n', text: num(t.on_hand) }), el('td', { class: 'n', text: num(t.reserved) }),
    el('td', { class: 'n', text: num(t.committed) }), el('td', { class: 'n', text: num(t.available) }));
  const load = () => guard(async () => {
    const q = new URLSearchParams({ limit: '100' });
    if (input.value) q.set('prefix', input.value);
    if (cursor) q.set('cursor', cursor);
    const v = await api(`/v1/stock?${q}`, { signal: ctx.signal });
    for (const s of v.skus) {
      const r = row(s.sku, s.totals);
      rows.set(s.sku, r);
      body.append(r);
    }
    if (!rows.size) body.replaceChildren(el('tr', {}, el('td', { colspan: 5, class: 'muted', text: 'No SKU matches.' })));
    cursor = v.next_cursor || '';
    more.hidden = !cursor;
  });
  more.addEventListener('click', load);
  root.append(el('h1', { text: 'Stock' }),
    el('form', {
      class: 'inline', role: 'search',
      onsubmit: (e) => { e.preventDefault(); body.replaceChildren(); rows.clear(); cursor = ''; load(); },
    }, el('label', { for: 'sku-prefix', text: 'SKUs starting with' }), input, el('button', { type: 'submit', text: 'Find' })),
    table(['SKU', 'On hand', 'Reserved', 'Committed', 'Available'], body), more);
  const dirty = new Set();
  const refresh = debounce(() => guard(async () => {
    for (const s of [...dirty]) {
      dirty.delete(s);
      const v = await api(`/v1/stock/${encodeURIComponent(s)}`, { signal: ctx.signal });
      const r = row(s, v.totals);
      rows.get(s)?.replaceWith(r);
      rows.set(s, r);
    }
  }), 300);
  const off = feed.on((ev) => {
    if (ev.aggregate === 'level' && rows.has(ev.payload.sku)) {
      dirty.add(ev.payload.sku);
      refresh();
    }
  });
  await load();
  return () => { off(); refresh.cancel(); };
}

async function skuPage(root, ctx, sku) {
  const levels = el('tbody', {});
  const totals = el('p', { class: 'totals' });
  const moves = el('tbody', {});
  const movesNote = el('p', { class: 'muted' });
  root.append(el('p', {}, el('a', { href: '#/stock', text: '← Stock' })), el('h1', {}, 'SKU ', el('code', { text: sku })),
    section('Levels', table(['Location', 'On hand', 'Reserved', 'Committed', 'Available', 'Version'], levels), totals));
  const drawLevels = (v) => {
    levels.replaceChildren(...v.levels.map((l) => el('tr', { 'data-location': l.location },
      el('td', { text: l.location }), el('td', { class: 'n', text: num(l.on_hand) }), el('td', { class: 'n', text: num(l.reserved) }),
      el('td', { class: 'n', text: num(l.committed) }), el('td', { class: 'n available', text: num(l.available) }),
      el('td', { class: 'n', text: l.version }))));
    if (!v.levels.length) levels.append(el('tr', {}, el('td', { colspan: 6, class: 'muted', text: 'No stock at any location.' })));
    totals.textContent = `Totals: ${num(v.totals.on_hand)} on hand, ${num(v.totals.reserved)} reserved, ${num(v.totals.committed)} committed, ${num(v.totals.available)} available.`;
    totals.dataset.available = v.totals.available;
  };
  const loadLevels = () => guard(async () => drawLevels(await api(`/v1/stock/${encodeURIComponent(sku)}`, { signal: ctx.signal })));
  const loadMoves = () => guard(async () => {
    const v = await pages(`/v1/movements?sku=${encodeURIComponent(sku)}&limit=1000`, 'movements', 5000);
    const tail = v.items.slice(-100).reverse();
    moves.replaceChildren(...tail.map((m) => el('tr', {},
      el('td', { text: fmtTime(m.at) }), el('td', { text: m.location }), el('td', { text: m.kind }),
      el('td', { class: 'n', text: m.on_hand }), el('td', { class: 'n', text: m.reserved }), el('td', { class: 'n', text: m.committed }),
      el('td', { text: m.ref || m.reason || '' }), el('td', { text: m.actor || '' }))));
    movesNote.textContent = v.more ? 'The latest 100 of the first 5,000 movements.' : `The latest ${tail.length} of ${v.items.length} movements, newest first.`;
  });

  if (session.admin) {
    const loc = el('input', { id: 'adjust-location', name: 'location', required: true, list: 'locations', autocomplete: 'off' });
    const delta = el('input', { id: 'adjust-delta', name: 'delta', type: 'number', step: '1', required: true });
    const reason = el('input', { id: 'adjust-reason', name: 'reason', required: true, maxlength: '200' });
    const dl = el('datalist', { id: 'locations' });
    guard(async () => {
      const v = await pages('/v1/locations?limit=1000', 'locations', 1000);
      dl.replaceChildren(...v.items.map((l) => el('option', { value: l.id, text: l.name })));
    });
    root.append(section('Adjust', el('form', {
      class: 'adjust',
      onsubmit: async (e) => {
        e.preventDefault();
        const d = Number(delta.value);
        if (!Number.isInteger(d) || d === 0) { notice('The change must be a whole number other than 0.'); return; }
        const ok = await confirmDialog(`Change on hand of ${sku} at ${loc.value} by ${d > 0 ? '+' : ''}${d} (${reason.value})?`, 'Adjust');
        if (!ok) return;
        await guard(async () => {
          await api(`/v1/stock/${encodeURIComponent(sku)}/${encodeURIComponent(loc.value)}/adjust`,
            { method: 'POST', body: { delta: d, reason: reason.value }, idempotent: true });
          delta.value = '';
          reason.value = '';
          notice(`Adjusted ${sku} at ${loc.value} by ${d}.`, 'ok');
          loadLevels();
        });
      },
    }, el('label', { for: 'adjust-location', text: 'Location' }), loc, dl,
    el('label', { for: 'adjust-delta', text: 'Change of on hand (±)' }), delta,
    el('label', { for: 'adjust-reason', text: 'Reason' }), reason,
    el('button', { type: 'submit', text: 'Adjust…' }))));
  }
  root.append(section('Movements', table(['At', 'Location', 'Kind', 'On hand', 'Reserved', 'Committed', 'Ref / reason', 'By'], moves), movesNote));

  const reloadMoves = debounce(loadMoves, 1000);
  const off = feed.on((ev) => {
    if (ev.aggregate === 'level' && ev.payload.sku === sku) {
      loadLevels();
      reloadMoves();
    }
  });
  await Promise.all([loadLevels(), loadMoves()]);
  return () => { off(); reloadMoves.cancel(); };
}

// -- reservations and orders

const kinds = {
  reservations: {
    title: 'Reservations', one: 'reservation', aggregate: 'reservation',
    statuses: ['held', 'confirmed', 'released', 'expired'],
    actions: (r) => r.status === 'held' ? [{ label: 'Release', ask: `Release reservation ${r.id}? Its stock goes back on sale.`, method: 'DELETE', path: `/v1/reservations/${r.id}` }] : [],
  },
  orders: {
    title: 'Orders', one: 'order', aggregate: 'order',
    statuses: ['committed', 'cancelled', 'fulfilled'],
    actions: (o) => o.status === 'committed' ? [
      { label: 'Cancel', ask: `Cancel order ${o.id}? Its stock goes back on sale.`, method: 'POST', path: `/v1/orders/${o.id}/cancel` },
      { label: 'Fulfil', ask: `Mark order ${o.id} fulfilled? Its stock leaves on hand.`, method: 'POST', path: `/v1/orders/${o.id}/fulfill` },
    ] : [],
  },
};

function actionButtons(kind, item, after) {
  if (!session.admin) return [];
  return kind.actions(item).map((a) => el('button', {
    type: 'button', class: 'danger', text: a.label, 'data-action': a.label.toLowerCase(),
    onclick: async () => {
      if (!await confirmDialog(a.ask, a.label)) return;
      await guard(async () => after(await api(a.path, { method: a.method })));
    },
  }));
}

async function listPage(root, ctx, name, [id]) {
  const kind = kinds[name];
  if (id) return detailPage(root, ctx, kind, name, decodeURIComponent(id));
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  const status = el('select', { id: 'status-filter', name: 'status' },
    el('option', { value: '', text: 'any' }), kind.statuses.map((s) => el('option', { value: s, text: s })));
  status.value = params.get('status') || '';
  status.addEventListener('change', () => { location.hash = `#/${name}${status.value ? '?status=' + status.value : ''}`; });
  const body = el('tbody', {});
  const more = el('button', { type: 'button', text: 'Load more', hidden: true });
  const rows = new Map();
  let cursor = '';
  const row = (r) => el('tr', { 'data-id': r.id, 'data-status': r.status },
    el('td', {}, el('a', { href: `#/${name}/${r.id}`, text: r.id })),
    el('td', {}, el('span', { class: `status s-${r.status}`, text: r.status })),
    el('td', { text: linesText(r.lines) }),
    el('td', { text: fmtTime(r.created_at) }),
    el('td', { text: r.expires_at && r.status === 'held' ? fmtIn(r.expires_at) : '' }),
    el('td', {}, actionButtons(kind, r, upsert)));
  function upsert(r) {
    const old = rows.get(r.id);
    if (status.value && r.status !== status.value) {
      old?.remove();
      rows.delete(r.id);
      return;
    }
    const fresh = row(r);
    if (old) old.replaceWith(fresh);
    else body.prepend(fresh);
    rows.set(r.id, fresh);
    body.querySelector('.empty')?.remove();
  }
  const load = () => guard(async () => {
    const q = new URLSearchParams({ limit: '100' });
    if (status.value) q.set('status', status.value);
    if (cursor) q.set('cursor', cursor);
    const v = await api(`/v1/${name}?${q}`, { signal: ctx.signal });
    for (const r of v[name]) {
      if (rows.has(r.id)) continue;
      const tr = row(r);
      rows.set(r.id, tr);
      body.append(tr);
    }
    if (!rows.size) body.replaceChildren(el('tr', { class: 'empty' }, el('td', { colspan: 6, class: 'muted', text: `No ${name} yet.` })));
    cursor = v.next_cursor || '';
    more.hidden = !cursor;
  });
  more.addEventListener('click', load);
  root.append(el('h1', { text: kind.title }),
    el('form', { class: 'inline', onsubmit: (e) => e.preventDefault() }, el('label', { for: 'status-filter', text: 'Status' }), status),
    table(['Id', 'Status', 'Lines', 'Created', 'Expires', ''], body), more);
  const off = feed.on((ev) => { if (ev.aggregate === kind.aggregate) upsert(ev.payload); });
  await load();
  return off;
}

async function detailPage(root, ctx, kind, name, id) {
  const box = el('div', {});
  root.append(el('p', {}, el('a', { href: `#/${name}`, text: `← ${kind.title}` })), box);
  const draw = (r) => {
    box.replaceChildren(el('h1', {}, `${kind.one[0].toUpperCase()}${kind.one.slice(1)} `, el('code', { text: r.id })),
      el('dl', { class: 'fields' },
        el('dt', { text: 'Status' }), el('dd', {}, el('span', { id: 'detail-status', class: `status s-${r.status}`, text: r.status })),
        el('dt', { text: 'Created' }), el('dd', { text: fmtTime(r.created_at) }),
        r.expires_at ? [el('dt', { text: 'Expires' }), el('dd', { text: `${fmtTime(r.expires_at)} (${fmtIn(r.expires_at)})` })] : null,
        r.owner ? [el('dt', { text: 'Key' }), el('dd', { text: r.owner })] : null),
      section('Lines', table(['SKU', 'Quantity', 'Location'], (r.lines || []).map((l) => el('tr', {},
        el('td', {}, el('a', { href: `#/stock/${encodeURIComponent(l.sku)}`, text: l.sku })), el('td', { class: 'n', text: l.quantity }), el('td', { text: l.location || '' }))))),
      section('Allocations', table(['SKU', 'Location', 'Quantity'], (r.allocations || []).map((a) => el('tr', {},
        el('td', { text: a.sku }), el('td', { text: a.location }), el('td', { class: 'n', text: a.quantity }))))),
      el('div', { class: 'actions' }, actionButtons(kind, r, draw)));
  };
  const off = feed.on((ev) => { if (ev.aggregate === kind.aggregate && ev.aggregate_id === id) draw(ev.payload); });
  await guard(async () => draw(await api(`/v1/${name}/${encodeURIComponent(id)}`, { signal: ctx.signal })));
  return off;
}

// -- shows and seat maps

// showsPage lists the shows, newest first (GET /v1/shows), each linking
// to its seat map, and redraws when one is created or changed. Under
// #/shows/ID it draws show ID, and under #/shows/ID/SECTION that show
// with the seats of SECTION.
async function showsPage(root, ctx, [id, sec]) {
  if (id) return showPage(root, ctx, decodeURIComponent(id), sec ? decodeURIComponent(sec) : '');
  const input = el('input', { id: 'show-id', name: 'show', required: true, placeholder: 'opening' });
  const rows = el('tbody', { id: 'show-list' });
  const note = el('p', { class: 'muted' });
  const load = () => guard(async () => {
    const { items, more } = await pages('/v1/shows?limit=200', 'shows', 1000);
    rows.replaceChildren(...items.map((s) => el('tr', { 'data-show': s.id },
      el('td', {}, el('a', { href: `#/shows/${encodeURIComponent(s.id)}` }, el('code', { text: s.id }))),
      el('td', { text: s.name }), el('td', { text: fmtTime(s.created_at) }))));
    if (!items.length) rows.append(el('tr', {}, el('td', { colspan: 3, class: 'muted', text: 'No shows yet.' })));
    note.textContent = more ? 'The 1,000 newest; open an older one by its id.' : '';
  });
  root.append(el('h1', { text: 'Shows' }),
    el('form', { class: 'inline', onsubmit: (e) => { e.preventDefault(); location.hash = `#/shows/${encodeURIComponent(input.value.trim())}`; } },
      el('label', { for: 'show-id', text: 'Show id' }), input, el('button', { type: 'submit', text: 'Open' })),
    section('Newest first', table(['Show', 'Name', 'Created'], rows), note));
  const reload = debounce(load, 300);
  await load();
  const off = feed.on((ev) => { if (ev.aggregate === 'event') reload(); });
  return () => { off(); reload.cancel(); };
}

const seatStatuses = ['free', 'held', 'booked', 'blocked'];
const zeroCounts = () => Object.fromEntries(seatStatuses.map((s) => [s, 0]));

// byName orders section names as people number them: S2 before S10.
const byName = new Intl.Collator('en', { numeric: true }).compare;

// wholeMapSeats is the largest show whose seats the page draws all at
// once, as one picture: a theatre or a concert hall. That is one request
// (a page holds up to 10,000 seats), two SVG nodes a seat, and, in a hall
// of a few dozen rows, seats that are still clear circles at the page's
// width. A larger show, up to a stadium's 100,000 seats, first draws its
// sections from the show's map and counts, and then the seats of the
// section chosen only, so that what the page reads and draws follows
// what is on screen, not the size of the venue.
const wholeMapSeats = 2000;

// maxShowSeats is the most seats a show may have (stockade.MaxSeats).
const maxShowSeats = 100000;

const seatsOfRow = (r) => r.last - r.first + 1;

// sectionsOf gathers a map's rows by section, sorted by name: how many
// seats each has and the box its seats sit in. A row's seat First sits at
// its start, and each next one step (1 if not given) further along x, as
// stockade.SeatRow says.
function sectionsOf(rows) {
  const by = new Map();
  for (const r of rows) {
    let s = by.get(r.section);
    if (!s) by.set(r.section, s = { name: r.section, seats: 0, x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity });
    s.seats += seatsOfRow(r);
    s.x0 = Math.min(s.x0, r.start.x); s.x1 = Math.max(s.x1, r.start.x + (r.last - r.first) * (r.step || 1));
    s.y0 = Math.min(s.y0, r.start.y); s.y1 = Math.max(s.y1, r.start.y);
  }
  return [...by.values()].sort((a, b) => byName(a.name, b.name));
}

// showPage draws a show: its seat map, its seat counts by section and
// category, and its general-admission areas. A show of up to
// wholeMapSeats seats has every seat drawn; a larger one has its
// sections drawn, each a link to the page of that section (#/shows/ID/
// SECTION), whose seats alone are read and drawn. The counts are the
// service's, read again as seats change; live seat events recolour the
// seats that are drawn.
async function showPage(root, ctx, id, chosen) {
  const path = `/v1/shows/${encodeURIComponent(id)}`;
  const title = el('h1', {}, 'Show ', el('code', { text: id }));
  const overview = el('div', { class: 'sections', id: 'sections', hidden: true });
  const map = el('div', { class: 'seatmap', id: 'seatmap' });
  const counts = el('tbody', { id: 'seat-counts' });
  const totals = el('p', { id: 'seat-totals' });
  const areas = el('tbody', {});
  root.append(el('p', {}, el('a', { href: '#/shows', text: '← Shows' })), title,
    el('ul', { class: 'legend', 'aria-label': 'Colours' }, seatStatuses.map((s) => el('li', {}, el('span', { class: `swatch seat-${s}` }), s)),
      el('li', {}, el('span', { class: 'swatch ring' }), 'accessible'), el('li', {}, el('span', { class: 'swatch aisle' }), 'aisle')),
    overview, map, totals,
    section('Seats by section and category', table(['Section', 'Category', ...seatStatuses], counts)),
    section('General admission', table(['Area', 'Capacity', 'Held', 'Booked'], areas)));

  let whole = true; // whether the page draws every seat of the show
  const seats = new Map(); // id → {seat, node}: the seats drawn
  const setStatus = (sid, status) => {
    const s = seats.get(sid);
    if (!s || s.seat.status === status) return;
    s.seat.status = status;
    s.node.setAttribute('class', `seat seat-${status}`);
    s.node.firstChild.textContent = `${sid}: ${status}`;
  };
  // While the page loads, the changes that arrive wait in pending and
  // are applied, in order, once the seats are drawn.
  let pending = null;
  const change = (sid, status) => {
    if (pending) pending.push([sid, status]);
    else setStatus(sid, status);
  };

  const drawCounts = (show) => {
    const by = new Map();
    const all = zeroCounts();
    for (const c of show.counts || []) {
      if (!(c.status in all)) continue;
      const k = `${c.section}\u0000${c.category || ''}`;
      if (!by.has(k)) by.set(k, { section: c.section, category: c.category || '', ...zeroCounts() });
      by.get(k)[c.status] += c.count;
      all[c.status] += c.count;
    }
    counts.replaceChildren(...[...by.values()].sort((a, b) => byName(a.section, b.section) || byName(a.category, b.category))
      .map((c) => el('tr', { 'data-section': c.section, 'data-category': c.category },
        el('td', { text: c.section }), el('td', { text: c.category }),
        seatStatuses.map((s) => el('td', { class: 'n', 'data-status': s, text: num(c[s]) })))));
    totals.textContent = seatStatuses.map((s) => `${num(all[s])} ${s}`).join(', ');
    for (const s of seatStatuses) totals.dataset[s] = all[s];
  };
  const drawAreas = (show) => {
    areas.replaceChildren(...(show.areas || []).map((a) => el('tr', {},
      el('td', { text: a.name }), el('td', { class: 'n', text: num(a.capacity) }), el('td', { class: 'n', text: num(a.held) }), el('td', { class: 'n', text: num(a.booked) }))));
    if (!show.areas?.length) areas.append(el('tr', {}, el('td', { colspan: 4, class: 'muted', text: 'none' })));
  };

  // The sections of a large show, or of any show one of whose sections
  // is chosen: each a box around its seats, shaded
  // by its share of free seats and labelled with its name and free count,
  // and a list of the same as links, which the keyboard reaches (the
  // boxes are for the mouse, and out of the tab order).
  const drawSections = (show) => {
    const list = sectionsOf(show.rows || []);
    if ((whole && !chosen) || !list.length) {
      overview.hidden = true;
      overview.replaceChildren();
      return;
    }
    const free = new Map();
    for (const c of show.counts || []) {
      if (c.status === 'free') free.set(c.section, (free.get(c.section) || 0) + c.count);
    }
    const svg = svgEl('svg', { role: 'img', preserveAspectRatio: 'xMidYMin meet',
      'aria-label': `Sections of ${id}, shaded by their share of free seats; the links below open each.` });
    const links = [];
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const s of list) {
      const f = free.get(s.name) || 0;
      const href = `#/shows/${encodeURIComponent(id)}/${encodeURIComponent(s.name)}`;
      const current = s.name === chosen;
      const what = `${num(f)} of ${num(s.seats)} free`;
      const w = s.x1 - s.x0 + 1, h = s.y1 - s.y0 + 1;
      const size = Math.min(h / 3, w / (0.62 * Math.max(s.name.length, what.length, 4)));
      const x = s.x0 - 0.5 + w / 2, y = s.y0 - 0.5 + h / 2;
      svg.append(svgEl('a', { href, tabindex: '-1', class: current ? 'section current' : 'section', 'data-section': s.name, 'data-free': f },
        svgEl('title', { text: `${s.name}: ${what}` }),
        svgEl('rect', { x: s.x0 - 0.5, y: s.y0 - 0.5, width: w, height: h, 'fill-opacity': (0.15 + 0.7 * (s.seats ? f / s.seats : 0)).toFixed(2) }),
        svgEl('text', { x, y: y - size * 0.1, 'font-size': size, 'stroke-width': size * 0.2, text: s.name }),
        svgEl('text', { x, y: y + size, 'font-size': size * 0.8, 'stroke-width': size * 0.16, text: what })));
      links.push(el('li', {}, el('a', { href, 'data-section': s.name, 'data-free': f, 'aria-current': current ? 'true' : null, text: s.name }), ` ${what}`));
      x0 = Math.min(x0, s.x0); x1 = Math.max(x1, s.x1);
      y0 = Math.min(y0, s.y0); y1 = Math.max(y1, s.y1);
    }
    svg.setAttribute('viewBox', `${x0 - 1} ${y0 - 1} ${x1 - x0 + 2} ${y1 - y0 + 2}`);
    overview.replaceChildren(svg, el('ul', { class: 'section-list', id: 'section-list', 'aria-label': 'Sections' }, links));
    overview.hidden = false;
  };

  const drawShow = (show) => {
    drawCounts(show);
    drawAreas(show);
    drawSections(show);
  };

  // load reads the show, draws it and then reads and draws the seats on
  // screen: all of them, those of the section chosen, or none before a
  // section of a large show is chosen. A later load supersedes one that
  // is still reading.
  let loads = 0;
  const load = () => guard(async () => {
    const n = ++loads;
    pending = [];
    try {
      const show = await api(path, { signal: ctx.signal });
      if (n !== loads) return;
      title.replaceChildren('Show ', el('code', { text: id }), ` ${show.name || ''}`);
      const rows = show.rows || [];
      const total = rows.reduce((sum, r) => sum + seatsOfRow(r), 0);
      whole = total <= wholeMapSeats;
      drawShow(show);
      const say = (text) => {
        seats.clear();
        map.replaceChildren(el('p', { class: 'muted', text }));
      };
      if (!rows.length) return say('This show has no numbered seats.');
      if (chosen && !rows.some((r) => r.section === chosen)) return say(`This show has no section ${chosen}.`);
      if (!chosen && !whole) return say(`${num(total)} seats in ${overview.querySelectorAll('li').length} sections: choose a section to draw its seats.`);
      const q = chosen ? `&section=${encodeURIComponent(chosen)}` : '';
      const list = await pages(`${path}/seats?limit=10000${q}`, 'seats', maxShowSeats, ctx.signal);
      if (n !== loads) return;
      drawMap(list.items, rows, chosen ? `Seats of section ${chosen} of ${id}` : `Seat map of ${id}`);
      for (const [sid, status] of pending) setStatus(sid, status);
    } finally {
      if (n === loads) pending = null;
    }
  });

  // The map: a seat is a circle at its position, coloured by status, in
  // an SVG scaled to the page's width; an accessible seat has a ring, and
  // an aisle is a line between the seats it parts.
  const drawMap = (list, rowsOfMap, what) => {
    seats.clear();
    if (!list.length) {
      map.replaceChildren(el('p', { class: 'muted', text: 'No numbered seats here.' }));
      return;
    }
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const s of list) {
      x0 = Math.min(x0, s.position.x); x1 = Math.max(x1, s.position.x);
      y0 = Math.min(y0, s.position.y); y1 = Math.max(y1, s.position.y);
    }
    const svg = svgEl('svg', { viewBox: `${x0 - 1} ${y0 - 1} ${x1 - x0 + 2} ${y1 - y0 + 2}`, role: 'img', preserveAspectRatio: 'xMidYMin meet',
      'aria-label': `${what}: ${list.length} seats, coloured by status; the table below counts them.` });
    for (const s of list) {
      const c = svgEl('circle', { cx: s.position.x, cy: s.position.y, r: 0.42, class: `seat seat-${s.status}`, 'data-seat': s.id },
        svgEl('title', { text: `${s.id}: ${s.status}` }));
      svg.append(c);
      seats.set(s.id, { seat: s, node: c });
      if (s.accessible) svg.append(svgEl('circle', { cx: s.position.x, cy: s.position.y, r: 0.3, class: 'accessible', 'data-accessible': s.id }));
    }
    for (const r of rowsOfMap) {
      for (const n of r.aisles_after || []) {
        const a = seats.get(`${r.section}/${r.row}/${n}`)?.seat.position;
        const b = seats.get(`${r.section}/${r.row}/${n + 1}`)?.seat.position;
        if (!a || !b) continue;
        const x = (a.x + b.x) / 2;
        svg.append(svgEl('line', { x1: x, x2: x, y1: Math.min(a.y, b.y) - 0.45, y2: Math.max(a.y, b.y) + 0.45,
          class: 'aisle', 'data-aisle': `${r.section}/${r.row}/${n}` }));
      }
    }
    map.replaceChildren(svg);
  };

  // Seat events recolour the seats drawn at once, and have the counts
  // (and the areas' and sections') read again from the service, at most
  // once every 500 ms however fast the seats sell. A change of the map
  // itself draws the page again.
  const refresh = coalesce(() => guard(async () => drawShow(await api(path, { signal: ctx.signal }))), 500);
  const off = feed.on((ev) => {
    if (ev.aggregate === 'event' && ev.aggregate_id === id) { load(); return; }
    const p = ev.payload;
    if (p?.event_id !== id) return;
    const to = {
      'hold.held': 'held', 'hold.extended': 'held', 'hold.released': 'free', 'hold.expired': 'free',
      'hold.confirmed': 'booked', 'booking.booked': 'booked', 'booking.cancelled': 'free',
    }[ev.type];
    if (!to) return;
    for (const sid of p.seats || []) change(sid, to);
    refresh();
  });
  await load();
  return () => { off(); refresh.cancel(); };
}

// -- waiting rooms

// Rooms write nothing to the event feed as visitors join and are
// admitted, so their pages read them on a timer (poll) while they are
// open, every roomRefreshMs.
const roomRefreshMs = 1000;

// roomMeters measure how fast each room admits: by room id, the reads of
// its admitted count over the last minute, [time, admitted], oldest first.
// They outlive a page, so a room's page goes on from the list's reads.
const roomMeters = new Map();

// admitRate records that room r had admitted r.admitted at time at, and
// returns how many it admitted in the last minute: the change of the
// count between the first and the last read of that minute (null until
// they are a second apart), and the seconds they span. While they span
// less than most of a minute (the page has not read for one), the count
// is a lower bound: partial. It is a count, not the rate of a shorter
// span scaled to a minute: a room admits in bursts (up to RoomBurst
// seconds of its rate at once), and a burst seen over a second would read
// as many times the room's rate.
function admitRate(r, at = Date.now()) {
  let m = roomMeters.get(r.id);
  if (!m) roomMeters.set(r.id, m = []);
  // A count below the last one is an answer that left before it: skip it.
  if (!m.length || r.admitted >= m[m.length - 1][1]) m.push([at, r.admitted]);
  while (m.length > 1 && m[0][0] < at - 60e3) m.shift();
  const [t0, a0] = m[0], [t1, a1] = m[m.length - 1];
  const span = (t1 - t0) / 1000;
  return { perMinute: span >= 1 ? a1 - a0 : null, span, partial: span < 60 - 5 * roomRefreshMs / 1000 };
}

const roomStatusText = (s) => s.replaceAll('_', ' ');
const roomGates = (s) => s === 'scheduled' || s === 'queueing';
const pausedWhy = { active_limit: 'active limit reached', stock: 'stock promised or held' };

// statusTitle says when room r sold out, or opens.
const statusTitle = (r) => r.status === 'sold_out' ? `Sold out at ${fmtTime(r.sold_out_at)}`
  : r.status === 'scheduled' ? `Opens at ${fmtTime(r.opens_at)}` : '';

// roomFigures are the figures of room r that change, as the rooms page's
// columns and a room's page show them, by name. Why it is paused counts
// only while it queues: a room keeps the reason its last admissions gave.
function roomFigures(r, rate) {
  return {
    queued: num(r.queued),
    active: `${num(r.active)} / ${num(r.active_limit)}`,
    admitted: num(r.admitted),
    rate: `${rate.perMinute === null ? '–' : (rate.partial ? '≥' : '') + num(rate.perMinute)} of ${num(r.admit_per_minute)}`,
    wait: r.longest_wait_seconds > 0 ? fmtSpan(r.longest_wait_seconds) : '–',
    paused: r.status !== 'queueing' ? '–' : r.paused ? pausedWhy[r.paused] || r.paused : 'no',
    free: num(r.stock.free),
    held: num(r.stock.held),
  };
}

// roomColumns head the figures of roomFigures, in the order shown.
const roomColumns = [['Queued', 'queued'], ['Active / limit', 'active'], ['Admitted', 'admitted'], ['Admitted / min', 'rate'],
  ['Longest wait', 'wait'], ['Paused', 'paused'], ['Stock free', 'free'], ['Stock held', 'held']];

// rateTitle says what the measured rate of a room is measured over.
const rateTitle = (r, rate) => `${rate.perMinute === null ? 'Not measured yet'
  : `${num(rate.perMinute)} admitted in the last ${Math.round(rate.span)} s this page read`}; the room is set to admit ${num(r.admit_per_minute)} a minute.`;

// frontOf is what room r stands in front of, as links: its show, or its
// SKUs (the first few of them, unless all).
function frontOf(r, all = false) {
  if (r.show_id) return ['show ', el('a', { href: `#/shows/${encodeURIComponent(r.show_id)}` }, el('code', { text: r.show_id }))];
  const skus = r.skus || [];
  const shown = all ? skus : skus.slice(0, 3);
  const out = [skus.length === 1 ? 'SKU ' : 'SKUs '];
  shown.forEach((sku, i) => out.push(i ? ', ' : '', el('a', { href: `#/stock/${encodeURIComponent(sku)}` }, el('code', { text: sku }))));
  if (shown.length < skus.length) out.push(` and ${skus.length - shown.length} more`);
  return out;
}

// roomsPage lists every room (GET /v1/rooms) with its queue, admissions
// and stock, read again every roomRefreshMs while the page is open. Rows
// change in place, so a link that has the focus keeps it. Under #/rooms/ID
// it shows room ID.
async function roomsPage(root, ctx, [id]) {
  if (id) return roomPage(root, ctx, decodeURIComponent(id));
  const body = el('tbody', { id: 'room-rows' });
  const note = el('p', { class: 'muted' });
  root.append(el('h1', { text: 'Waiting rooms' }),
    el('p', { class: 'muted', text: 'Each room, read again every second while this page is open. Admitted / min counts the visitors '
      + 'admitted over the last minute of these reads (≥ until they span a minute), beside the rate the room is set to.' }),
    table(['Room', 'In front of', 'Status', ...roomColumns.map(([h]) => h)], body), note);

  const rows = new Map(); // room id → {tr, status, cells, version}
  const add = (r) => {
    const cells = Object.fromEntries(roomColumns.map(([, name]) => [name, el('td', { class: name === 'paused' ? null : 'n', 'data-figure': name })]));
    const status = el('span', {});
    const tr = el('tr', { 'data-room': r.id },
      el('td', {}, el('a', { href: `#/rooms/${encodeURIComponent(r.id)}` }, el('code', { text: r.id }))),
      el('td', {}, frontOf(r)), el('td', {}, status), Object.values(cells));
    const row = { tr, status, cells, version: 0 };
    rows.set(r.id, row);
    return row;
  };
  const update = (row, r, rate) => {
    if (r.version < row.version) return; // read before the one shown
    row.version = r.version;
    Object.assign(row.tr.dataset, { status: r.status, queued: r.queued, admitted: r.admitted, active: r.active,
      rate: rate.perMinute ?? '' });
    row.tr.classList.toggle('sold-out', r.status === 'sold_out');
    row.status.className = `status s-${r.status}`;
    row.status.textContent = roomStatusText(r.status);
    row.status.title = statusTitle(r);
    for (const [name, text] of Object.entries(roomFigures(r, rate))) {
      if (row.cells[name].textContent !== text) row.cells[name].textContent = text;
    }
    row.cells.paused.className = r.status === 'queueing' && r.paused ? 'paused' : '';
    row.cells.rate.title = rateTitle(r, rate);
  };
  let order = null; // the ids of the rows, in the order drawn
  await poll(async () => {
    const { items, more } = await pages('/v1/rooms?limit=1000', 'rooms', 10000, ctx.signal);
    const at = Date.now();
    for (const r of items) update(rows.get(r.id) || add(r), r, admitRate(r, at));
    // Rows move only when rooms come or go: moving a row would take
    // the focus from a link in it.
    const ids = items.map((r) => r.id).join('\u0000');
    if (ids !== order) {
      order = ids;
      for (const rid of rows.keys()) if (!items.some((r) => r.id === rid)) rows.delete(rid);
      body.replaceChildren(...(items.length ? items.map((r) => rows.get(r.id).tr)
        : [el('tr', {}, el('td', { colspan: 3 + roomColumns.length, class: 'muted', text: 'No rooms yet.' }))]));
    }
    note.textContent = `Read at ${fmtTime(new Date(at))}${more ? '; the first 10,000 rooms' : ''}.`;
  }, roomRefreshMs, ctx.signal);
}

// roomPage shows room id: its figures as the rooms page does, its
// settings, and, for an admin, a button to close it or to open it again.
async function roomPage(root, ctx, id) {
  const path = `/v1/rooms/${encodeURIComponent(id)}`;
  const box = el('div', { id: 'room' });
  root.append(el('p', {}, el('a', { href: '#/rooms', text: '← Rooms' })), box);
  const status = el('span', { id: 'room-status' });
  const head = el('p', { class: 'room-head' });
  const state = el('dl', { class: 'fields' });
  const settings = el('dl', { class: 'fields', id: 'room-settings' });
  const actions = el('div', { class: 'actions' });
  // The figures: in cards, but for why it is paused, which is words.
  const figures = Object.fromEntries(roomColumns.map(([, name]) => [name, el(name === 'paused' ? 'dd' : 'strong', { id: `room-${name}` })]));
  const cards = roomColumns.filter(([, name]) => name !== 'paused');
  let drawn = false, version = 0, actionsFor = '';

  const act = (status, label, ask) => el('button', {
    type: 'button', class: status === 'closed' ? 'danger' : null, text: label, 'data-action': status === 'closed' ? 'close' : 'open',
    onclick: async () => {
      if (!await confirmDialog(ask, label)) return;
      await guard(async () => {
        draw(await api(path, { method: 'PATCH', body: { status } }));
        notice(status === 'closed' ? `Room ${id} is closed.` : `Room ${id} is open again.`, 'ok');
      });
    },
  });
  const drawActions = (r) => {
    if (!session.admin) return;
    const reopen = !roomGates(r.status);
    const want = reopen ? 'open' : 'close';
    if (want === actionsFor) return;
    actionsFor = want;
    const what = r.show_id ? `show ${r.show_id}` : `SKUs ${(r.skus || []).join(', ')}`;
    const b = reopen
      ? act('queueing', 'Open again', `Open room ${id} again? Holds on ${what} need an admission once more; if nothing is free or held, the room is sold out again at once.`)
      : act('closed', 'Close room', `Close room ${id}? Its ${num(r.queued)} waiting visitors are told it closed, and anyone may buy ${what} without an admission.`);
    const focused = actions.contains(document.activeElement);
    actions.replaceChildren(b);
    if (focused) b.focus();
  };

  const draw = (r) => {
    if (r.version < version) return; // read before the one shown
    version = r.version;
    const rate = admitRate(r);
    if (!drawn) {
      drawn = true;
      box.replaceChildren(el('h1', {}, 'Room ', el('code', { text: r.id })), head, actions,
        section('Now', el('div', { class: 'cards figures' }, cards.map(([label, name]) => el('div', { class: 'card' }, el('span', { text: label }), figures[name]))), state),
        section('Settings', settings));
      head.replaceChildren(status, ' in front of ', ...frontOf(r, true));
    }
    Object.assign(box.dataset, { status: r.status, queued: r.queued, admitted: r.admitted, active: r.active, version: r.version,
      rate: rate.perMinute ?? '' });
    status.className = `status s-${r.status}`;
    status.textContent = roomStatusText(r.status);
    status.title = statusTitle(r);
    for (const [name, text] of Object.entries(roomFigures(r, rate))) {
      if (figures[name].textContent !== text) figures[name].textContent = text;
    }
    figures.rate.title = rateTitle(r, rate);
    figures.paused.className = r.status === 'queueing' && r.paused ? 'paused' : '';
    refill(state,
      el('dt', { text: 'Paused' }), figures.paused,
      el('dt', { text: 'Joined' }), el('dd', { id: 'room-joined', text: num(r.joined) }),
      r.status === 'sold_out' ? [el('dt', { text: 'Sold out at' }), el('dd', { id: 'room-sold-out-at', text: `${fmtTime(r.sold_out_at)} (${fmtIn(r.sold_out_at)})` })] : null,
      el('dt', { text: 'Read at' }), el('dd', { text: fmtTime(new Date()) }));
    refill(settings,
      el('dt', { text: 'Opens at' }), el('dd', { text: `${fmtTime(r.opens_at)} (${fmtIn(r.opens_at)})` }),
      el('dt', { text: 'Order' }), el('dd', { 'data-setting': 'order', text: r.order === 'random_at_opening' ? 'random at opening, then arrival' : r.order }),
      el('dt', { text: 'Active limit' }), el('dd', { 'data-setting': 'active_limit', text: num(r.active_limit) }),
      el('dt', { text: 'Admits per minute' }), el('dd', { 'data-setting': 'admit_per_minute', text: num(r.admit_per_minute) }),
      el('dt', { text: 'Per visitor' }), el('dd', { 'data-setting': 'per_visitor', text: `${num(r.per_visitor)} ${(r.show_id ? ['seat or place', 'seats or places'] : ['unit', 'units'])[r.per_visitor === 1 ? 0 : 1]}` }),
      el('dt', { text: 'Stock factor' }), el('dd', { 'data-setting': 'stock_factor', text: `${r.stock_factor} × the stock left` }),
      el('dt', { text: 'Admission TTL' }), el('dd', { 'data-setting': 'admission_ttl', text: fmtSpan(r.admission_ttl_seconds) }),
      el('dt', { text: 'Version' }), el('dd', { text: r.version }),
      el('dt', { text: 'Created' }), el('dd', { text: fmtTime(r.created_at) }),
      el('dt', { text: 'Updated' }), el('dd', { text: fmtTime(r.updated_at) }),
      Object.entries(r.metadata || {}).flatMap(([k, v]) => [el('dt', {}, el('code', { text: k })), el('dd', { text: v })]));
    drawActions(r);
  };

  await poll(async () => {
    try {
      draw(await api(path, { signal: ctx.signal }));
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
      box.replaceChildren(el('h1', {}, 'Room ', el('code', { text: id })), el('p', { class: 'muted', text: e.message }));
      return false;
    }
  }, roomRefreshMs, ctx.signal);
}

// -- the event feed

async function eventsPage(root) {
  const filter = el('input', { id: 'event-filter', type: 'search', placeholder: 'reservation.', name: 'type' });
  const pause = el('button', { type: 'button', 'aria-pressed': 'false', text: 'Pause' });
  const body = el('tbody', { id: 'event-rows' });
  const row = (ev) => el('tr', { 'data-type': ev.type, 'data-event': ev.id, 'data-aggregate-id': ev.aggregate_id },
    el('td', { text: fmtTime(ev.at) }), el('td', {}, el('code', { text: ev.type })),
    el('td', { text: `${ev.aggregate} ${ev.aggregate_id}` }), el('td', { class: 'n', text: ev.version }));
  const draw = () => {
    const f = filter.value.trim();
    const list = feed.recent.filter((ev) => !f || ev.type.startsWith(f)).slice(-200).reverse();
    body.replaceChildren(...(list.length ? list.map(row) : [el('tr', { class: 'empty' }, el('td', { colspan: 4, class: 'muted', text: 'Waiting for changes…' }))]));
  };
  filter.addEventListener('input', draw);
  pause.addEventListener('click', () => {
    const on = pause.getAttribute('aria-pressed') !== 'true';
    pause.setAttribute('aria-pressed', String(on));
    pause.textContent = on ? 'Resume' : 'Pause';
    if (!on) draw();
  });
  root.append(el('h1', { text: 'Events' }),
    el('p', { class: 'muted', text: 'Changes as they commit, newest first (the last 200 since this page was opened).' }),
    el('form', { class: 'inline', onsubmit: (e) => e.preventDefault() }, el('label', { for: 'event-filter', text: 'Type starts with' }), filter, pause),
    table(['At', 'Type', 'Aggregate', 'Version'], body));
  draw();
  return feed.on((ev) => {
    if (pause.getAttribute('aria-pressed') === 'true') return;
    const f = filter.value.trim();
    if (f && !ev.type.startsWith(f)) return;
    body.querySelector('.empty')?.remove();
    body.prepend(row(ev));
    while (body.children.length > 200) body.lastChild.remove();
  });
}

// -- locks

async function locksPage(root, ctx) {
  const prefix = el('input', { id: 'lock-prefix', type: 'search', name: 'prefix' });
  const body = el('tbody', {});
  const note = el('p', { class: 'muted' });
  const load = () => guard(async () => {
    const q = new URLSearchParams({ limit: '500' });
    if (prefix.value) q.set('prefix', prefix.value);
    const v = await api(`/v1/locks?${q}`, { signal: ctx.signal });
    const locks = v.locks || [];
    body.replaceChildren(...(locks.length ? locks.map((k) => el('tr', {},
      el('td', {}, el('code', { text: k.key })), el('td', { text: k.kind || '' }),
      el('td', { text: (k.holders || []).map((h) => `${h.token ? '#' + h.token : h.id || '?'}${h.expires_at ? ' until ' + fmtTime(h.expires_at) : ''}`).join(', ') }),
      el('td', { class: 'n', text: k.waiters ?? 0 })))
      : [el('tr', {}, el('td', { colspan: 4, class: 'muted', text: 'Nothing held.' }))]));
    note.textContent = `Read at ${fmtTime(new Date())}${v.next_cursor ? '; more keys than shown' : ''}.`;
  });
  root.append(el('h1', { text: 'Locks' }),
    el('p', { class: 'muted', text: 'Who holds and who waits, as the lock inspector sees it. Reading it scans the lock store, so it is read when asked, not on a timer.' }),
    el('form', { class: 'inline', onsubmit: (e) => { e.preventDefault(); load(); } },
      el('label', { for: 'lock-prefix', text: 'Keys starting with' }), prefix, el('button', { type: 'submit', text: 'Refresh' })),
    table(['Key', 'Kind', 'Holders', 'Waiters'], body), note);
  await load();
}

// ---- routing ---------------------------------------------------------------

const routes = {
  '': overviewPage,
  stock: stockPage,
  reservations: (root, ctx, rest) => listPage(root, ctx, 'reservations', rest),
  orders: (root, ctx, rest) => listPage(root, ctx, 'orders', rest),
  shows: showsPage,
  rooms: roomsPage,
  events: eventsPage,
  locks: locksPage,
};

let leave = null;

async function route() {
  const m = main();
  const cleanup = leave;
  leave = null;
  if (cleanup) {
    cleanup.abort.abort();
    try { (await cleanup.done)?.(); } catch { /* a page that failed has nothing to undo */ }
  }
  m.replaceChildren();
  delete m.dataset.ready;
  m.dataset.route = location.hash || '#/';
  notice(pendingNotice);
  pendingNotice = '';
  const [path] = location.hash.replace(/^#\/?/, '').split('?');
  const [name, ...rest] = path.split('/');
  if (!session.key || name === 'login') {
    if (session.key) { location.hash = '#/'; return; }
    loginPage(m);
    return;
  }
  const page = routes[name];
  for (const a of document.querySelectorAll('nav a')) {
    if (a.getAttribute('href') === `#/${name}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (!page) {
    m.append(el('h1', { text: 'Not found' }), el('p', {}, 'No such page. ', el('a', { href: '#/', text: 'Overview' })));
    return;
  }
  const abort = new AbortController();
  const done = page(m, { signal: abort.signal }, rest);
  leave = { abort, done };
  // Tests and scripts wait for this: the page has drawn what it first read.
  done.finally(() => { if (!abort.signal.aborted) m.dataset.ready = 'true'; });
  m.focus({ preventScroll: true });
}

document.getElementById('signout').addEventListener('click', () => signOut());
window.addEventListener('hashchange', route);
if (session.key) startSession();
route();
