// The human view of a host's sitemaps: reads sitemap.xml beside this page, lists its files with
// their URL counts, searches every file of the host, and opens any file (gzipped or not) as a
// searchable, sortable list that renders only the rows in view. No library; no inline script,
// so a CSP of script-src 'self' holds. Files are read by their name beside the index, never
// from another origin.
'use strict';

const NS = {
  sm: 'http://www.sitemaps.org/schemas/sitemap/0.9',
  xhtml: 'http://www.w3.org/1999/xhtml',
  image: 'http://www.google.com/schemas/sitemap-image/1.1',
  news: 'http://www.google.com/schemas/sitemap-news/0.9',
  video: 'http://www.google.com/schemas/sitemap-video/1.1',
};
const INDEX = 'sitemap.xml';
const FILE_NAME = /^sitemap[A-Za-z0-9._-]*\.xml(\.gz)?$/;
const OVERSCAN = 8;
const NONE = '—';
const COUNTING = 3; // files counted at once on the index
const SEARCHING = 2; // files read at once by a search of every file
const RESULT_CAP = 500; // matches a search of every file shows: it reads no further file then
let rowHeight = 32; // px, sitemap.css's --row-height (taller on a narrow screen)

const $ = (id) => document.getElementById(id);
const timings = {};

// ------------------------------------------------------------------ readable URLs (IRIs)
// Percent-encoded UTF-8 is shown as the characters it encodes, as a person writes the IRI;
// ASCII (reserved characters among it), invalid UTF-8 and characters that hide or reorder
// text (controls, format and bidi characters, spaces, private use, unassigned) stay encoded.
const STRICT = new TextDecoder('utf-8', { fatal: true });
const HIDDEN = /[\p{Cc}\p{Cf}\p{Z}\p{Co}\p{Cn}]/u;

function hex(byte) {
  return '%' + byte.toString(16).toUpperCase().padStart(2, '0');
}

function utf8Length(lead) {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

function decodeRun(run) {
  const bytes = run.slice(1).split('%').map((h) => parseInt(h, 16));
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const n = utf8Length(bytes[i]);
    let text = null;
    if (n > 1 && i + n <= bytes.length) {
      try {
        text = STRICT.decode(Uint8Array.from(bytes.slice(i, i + n)));
      } catch {
        text = null;
      }
    }
    if (text !== null && !HIDDEN.test(text)) {
      out += text;
      i += n;
    } else {
      out += hex(bytes[i]);
      i += 1;
    }
  }
  return out;
}

function readable(url) {
  return url.replace(/(?:%[0-9A-Fa-f]{2})+/g, decodeRun);
}

// ------------------------------------------------------------------ reading files
async function readText(name, signal) {
  const response = await fetch(name, { credentials: 'same-origin', signal });
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  const body = new Uint8Array(await response.arrayBuffer());
  // A .xml.gz is a gzip file (no Content-Encoding), inflated here; a server that did send it
  // with Content-Encoding: gzip has had it inflated by the browser already.
  if (body[0] === 0x1f && body[1] === 0x8b) {
    const stream = new Blob([body]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text();
  }
  return new TextDecoder('utf-8').decode(body);
}

function parseXml(text, name) {
  const doc = new DOMParser().parseFromString(text, 'application/xml');
  if (doc.getElementsByTagName('parsererror').length) throw new Error(`${name} is not well-formed XML`);
  return doc.documentElement;
}

function fileName(loc) {
  const name = loc.slice(loc.lastIndexOf('/') + 1);
  return FILE_NAME.test(name) ? name : null;
}

function sectionOf(name) {
  const stem = name.replace(/^sitemap-/, '').replace(/\.xml(\.gz)?$/, '');
  if (stem === name || !stem.includes('-')) return NONE;
  return stem.slice(0, stem.lastIndexOf('-'));
}

function text(node) {
  return node ? node.textContent.trim() : '';
}

function child(node, ns, name) {
  for (let c = node.firstElementChild; c; c = c.nextElementSibling) {
    if (c.localName === name && c.namespaceURI === ns) return c;
  }
  return null;
}

// An extension element as (label, text) pairs: every child, nested ones as "parent child".
function fields(node, prefix = '') {
  const out = [];
  for (let c = node.firstElementChild; c; c = c.nextElementSibling) {
    const label = (prefix + ' ' + c.localName.replace(/_/g, ' ')).trim();
    if (c.firstElementChild) out.push(...fields(c, label));
    else out.push([label, text(c)]);
  }
  return out;
}

function urlsOf(root) {
  const urls = [];
  for (let el = root.firstElementChild; el; el = el.nextElementSibling) {
    if (el.localName !== 'url' || el.namespaceURI !== NS.sm) continue;
    const u = { loc: '', lastmod: '', time: NaN, alternates: [], images: [], news: null, videos: [] };
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const ns = c.namespaceURI;
      if (ns === NS.sm && c.localName === 'loc') u.loc = text(c);
      else if (ns === NS.sm && c.localName === 'lastmod') u.lastmod = text(c);
      else if (ns === NS.xhtml && c.localName === 'link') {
        u.alternates.push([c.getAttribute('hreflang') || '', c.getAttribute('href') || '']);
      } else if (ns === NS.image && c.localName === 'image') u.images.push(text(child(c, NS.image, 'loc')));
      else if (ns === NS.news && c.localName === 'news') u.news = c;
      else if (ns === NS.video && c.localName === 'video') u.videos.push(c);
    }
    u.time = u.lastmod ? Date.parse(u.lastmod) : NaN;
    u.shown = readable(u.loc);
    u.title = [u.news && text(child(u.news, NS.news, 'title')), ...u.videos.map((v) => text(child(v, NS.video, 'title')))]
      .filter(Boolean)
      .join(' · ');
    u.haystack = (u.shown + ' ' + u.loc + ' ' + u.title).toLowerCase();
    urls.push(u);
  }
  return urls;
}

// The one search rule, of a file and of every file: the text, trimmed and in lower case, is
// part of the URL as shown or as listed, or of a news or video title.
function needle(query) {
  return query.trim().toLowerCase();
}

function matches(u, q) {
  return u.haystack.includes(q);
}

// ------------------------------------------------------------------ small DOM helpers
function h(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) node.append(kid);
  return node;
}

// A link only to an http(s) URL: a file that was tampered with cannot make a javascript: link.
function link(url, attrs) {
  if (!/^https?:\/\//i.test(url)) return h('span', { title: url }, readable(url));
  return h('a', { href: url, title: url, ...attrs }, readable(url));
}

function muted() {
  return h('span', { class: 'muted' }, NONE);
}

function status(message) {
  $('status').textContent = message;
}

// ------------------------------------------------------------------ the index
let indexRead = null;
const counts = new Map();
let counting = null; // the count of every file's URLs, once started

// The files the index lists, read once: each with its loc, name (null: not a file beside it),
// lastmod, and the cell of the index's table that shows its count.
function indexFiles() {
  if (!indexRead) {
    indexRead = readText(INDEX).then((t) => {
      const root = parseXml(t, INDEX);
      const files = [];
      for (const el of root.getElementsByTagNameNS(NS.sm, 'sitemap')) {
        const loc = text(child(el, NS.sm, 'loc'));
        files.push({ loc, name: fileName(loc), lastmod: text(child(el, NS.sm, 'lastmod')), cell: null });
      }
      return files;
    });
  }
  return indexRead;
}

async function showIndex(query) {
  $('file-view').hidden = true;
  $('crumb').textContent = '';
  $('index-view').hidden = false;
  const files = await indexFiles();
  const host = files.length ? new URL(files[0].loc).host : location.host;
  $('title').textContent = `Sitemap of ${host}`;
  document.title = `Sitemap of ${host}`;
  const body = $('files').tBodies[0];
  body.replaceChildren(
    ...files.map((f) => {
      const cell = h('td', { class: 'num' }, counts.has(f.name) ? counts.get(f.name).toLocaleString('en') : '…');
      f.cell = cell;
      const open = f.name ? h('a', { href: '#file=' + encodeURIComponent(f.name) }, f.name) : link(f.loc);
      const raw = /^https?:\/\//i.test(f.loc) ? h('a', { href: f.loc, class: 'raw', title: f.loc }, '↗') : null;
      return h('tr', null, h('td', null, open, ' ', raw),
        h('td', null, f.name ? sectionOf(f.name) : NONE), cell, h('td', { class: 'nowrap' }, f.lastmod || muted()));
    }),
  );
  $('search-all').value = query;
  // a search reads the files it needs; the count of every file waits until there is none
  if (needle(query)) {
    status(`${files.length} file(s) in ${INDEX}.`);
    await searchAll(query);
  } else await startCounting(files);
}

function startCounting(files) {
  if (!counting) {
    status(`${files.length} file(s) in ${INDEX}; counting their URLs…`);
    counting = countAll(files);
  }
  return counting;
}

function showCount(f) {
  if (f.cell) f.cell.textContent = counts.get(f.name).toLocaleString('en');
}

async function countAll(files) {
  const queue = files.filter((f) => f.name);
  const work = async () => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      try {
        if (!counts.has(f.name)) counts.set(f.name, (await readText(f.name)).match(/<url[\s>]/g)?.length ?? 0);
        showCount(f);
      } catch (err) {
        f.cell.textContent = '?';
        f.cell.title = String(err.message);
      }
    }
  };
  await Promise.all(Array.from({ length: COUNTING }, work));
  const sections = new Map();
  for (const f of files) {
    const key = f.name ? sectionOf(f.name) : NONE;
    const s = sections.get(key) || { files: 0, urls: 0 };
    s.files += 1;
    s.urls += counts.get(f.name) || 0;
    sections.set(key, s);
  }
  $('sections').replaceChildren(
    ...[...sections].map(([name, s]) => h('li', null, h('strong', null, name), ` ${s.files} file(s), ${s.urls.toLocaleString('en')} URL(s)`)),
  );
  const total = [...sections.values()].reduce((a, s) => a + s.urls, 0);
  status(`${files.length} file(s), ${total.toLocaleString('en')} URL(s) in ${sections.size} section(s).`);
}

// ------------------------------------------------------------------ a search of every file
// Files are read SEARCHING at a time, in the index's order, each parsed, searched and let go
// (only its matches are kept); the page is drawn again between two files. The search stops
// reading at RESULT_CAP matches, and a new search (or leaving the index) stops the one before.
let searching = null; // the AbortController of the search under way

async function searchAll(query) {
  if (searching) searching.abort();
  const q = needle(query);
  const box = $('results');
  box.hidden = !q;
  box.dataset.state = q ? 'searching' : '';
  $('found').tBodies[0].replaceChildren();
  if (!q) return;
  const run = new AbortController();
  searching = run;
  const files = (await indexFiles()).filter((f) => f.name);
  const found = new Map(); // file name -> its matches, in the file's order
  const tally = { read: 0, failed: 0, matches: 0 };
  const queue = files.slice();
  const say = (text) => {
    $('found-status').textContent = text;
  };
  say(`Searching ${files.length} file(s)…`);
  const work = async () => {
    for (let f = queue.shift(); f && tally.matches < RESULT_CAP; f = queue.shift()) {
      let urls;
      try {
        urls = f.name === view.name ? view.urls : urlsOf(parseXml(await readText(f.name, run.signal), f.name));
      } catch (err) {
        if (run.signal.aborted) return;
        tally.failed += 1;
        urls = [];
      }
      if (run.signal.aborted) return;
      if (!counts.has(f.name)) {
        counts.set(f.name, urls.length);
        showCount(f);
      }
      const hits = [];
      for (const u of urls) {
        if (tally.matches >= RESULT_CAP) break;
        if (!matches(u, q)) continue;
        hits.push({ loc: u.loc, lastmod: u.lastmod });
        tally.matches += 1;
      }
      found.set(f.name, hits);
      tally.read += 1;
      drawFound(files, found, query);
      say(`Searching: ${tally.read} of ${files.length} file(s) read, ${tally.matches.toLocaleString('en')} match(es)…`);
      await new Promise((done) => setTimeout(done, 0)); // a keystroke is handled before the next file
    }
  };
  await Promise.all(Array.from({ length: SEARCHING }, work));
  if (run.signal.aborted) return;
  const unread = tally.failed ? `; ${tally.failed} could not be read` : '';
  if (tally.matches >= RESULT_CAP) {
    say(`The first ${RESULT_CAP} matches, from ${tally.read} of ${files.length} file(s): the search stops there (search for more of the URL to narrow it)${unread}.`);
  } else {
    say(`${tally.matches.toLocaleString('en')} match(es) in ${files.length} file(s)${unread}.`);
  }
  box.dataset.state = 'done';
}

function drawFound(files, found, query) {
  const rows = [];
  for (const f of files) {
    for (const hit of found.get(f.name) || []) {
      const open = '#' + new URLSearchParams({ file: f.name, q: query.trim() }).toString();
      rows.push(h('tr', null, h('td', { class: 'loc' }, link(hit.loc)), h('td', null, h('a', { href: open }, f.name)),
        h('td', { class: 'nowrap' }, hit.lastmod || muted())));
    }
  }
  $('found').tBodies[0].replaceChildren(...rows);
}

// ------------------------------------------------------------------ a file
const view = { name: null, urls: [], shown: [], active: 0, sort: null, dir: 1 };

const SORTS = {
  loc: (a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0),
  lastmod: (a, b) => a.time - b.time,
  alternates: (a, b) => a.alternates.length - b.alternates.length,
  images: (a, b) => a.images.length - b.images.length,
};

async function showFile(name, query, sort, dir) {
  if (searching) searching.abort();
  $('index-view').hidden = true;
  $('file-view').hidden = false;
  $('crumb').textContent = ' › ' + name;
  $('title').textContent = name;
  document.title = name;
  const fresh = view.name !== name;
  if (fresh) {
    status(`Reading ${name}…`);
    for (const key of Object.keys(timings)) delete timings[key];
    timings.start = performance.now();
    view.urls = [];
    const xml = await readText(name);
    timings.read = performance.now();
    const root = parseXml(xml, name);
    timings.parsed = performance.now();
    view.urls = urlsOf(root);
    view.name = name;
    view.active = 0;
  }
  $('search').value = query;
  view.sort = SORTS[sort] ? sort : null;
  view.dir = dir === 'desc' ? -1 : 1;
  apply();
  if (fresh) {
    await new Promise((done) => requestAnimationFrame(done));
    timings.rows = performance.now();
    document.documentElement.dataset.firstRowsMs = String(Math.round(timings.rows - timings.start));
  }
}

function apply() {
  const q = needle($('search').value);
  let shown = q ? view.urls.filter((u) => matches(u, q)) : view.urls.slice();
  if (view.sort) {
    const by = SORTS[view.sort];
    const order = new Map(view.urls.map((u, i) => [u, i]));
    // a URL without lastmod comes last either way; equal keys keep the file's order
    const last = view.sort === 'lastmod' ? (u) => (isNaN(u.time) ? 1 : 0) : () => 0;
    shown.sort((a, b) => last(a) - last(b) || view.dir * by(a, b) || order.get(a) - order.get(b));
  }
  view.shown = shown;
  view.active = 0;
  for (const th of document.querySelectorAll('[role=columnheader]')) {
    const key = th.firstElementChild && th.firstElementChild.dataset.sort;
    if (key) th.setAttribute('aria-sort', key === view.sort ? (view.dir > 0 ? 'ascending' : 'descending') : 'none');
  }
  $('grid').setAttribute('aria-rowcount', String(shown.length + 1));
  $('spacer').style.height = shown.length * rowHeight + 'px';
  const total = view.urls.length.toLocaleString('en');
  $('shown').textContent = q ? `${shown.length.toLocaleString('en')} of ${total} URL(s) match` : `${total} URL(s)`;
  const everywhere = $('everywhere');
  everywhere.hidden = !q;
  everywhere.href = '#' + new URLSearchParams({ q: $('search').value.trim() }).toString();
  status(`${name()}: ${total} URL(s).`);
  $('rows').scrollTop = 0;
  render();
}

function name() {
  return view.name || '';
}

function summary(u) {
  const parts = [];
  if (u.news) parts.push('News: ' + text(child(u.news, NS.news, 'title')));
  for (const v of u.videos) parts.push('Video: ' + text(child(v, NS.video, 'title')));
  return parts.length ? parts.join(' · ') : muted();
}

function row(u, i) {
  const alternates = u.alternates.length ? u.alternates.map((a) => a[0]).join(', ') : muted();
  const r = h('div', { class: 'row', role: 'row', id: 'r' + i, 'aria-rowindex': String(i + 2), 'aria-selected': String(i === view.active) },
    h('span', { role: 'gridcell', class: 'loc' }, link(u.loc, { tabindex: '-1' })),
    h('span', { role: 'gridcell' }, u.lastmod || muted()),
    h('span', { role: 'gridcell' }, alternates),
    h('span', { role: 'gridcell', class: 'num' }, u.images.length ? String(u.images.length) : muted()),
    h('span', { role: 'gridcell' }, summary(u)));
  r.style.top = i * rowHeight + 'px';
  r.addEventListener('click', (e) => {
    if (e.target.closest('a')) return;
    select(i);
  });
  return r;
}

let pending = false;
function render() {
  pending = false;
  const box = $('rows');
  const first = Math.max(0, Math.floor(box.scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(view.shown.length, Math.ceil((box.scrollTop + box.clientHeight) / rowHeight) + OVERSCAN);
  const kids = [];
  for (let i = first; i < last; i++) kids.push(row(view.shown[i], i));
  $('spacer').replaceChildren(...kids);
  box.setAttribute('aria-activedescendant', view.shown.length ? 'r' + view.active : '');
  detail();
}

function select(i) {
  view.active = Math.max(0, Math.min(i, view.shown.length - 1));
  const box = $('rows');
  const top = view.active * rowHeight;
  if (top < box.scrollTop) box.scrollTop = top;
  else if (top + rowHeight > box.scrollTop + box.clientHeight) box.scrollTop = top + rowHeight - box.clientHeight;
  render();
}

// the URL the detail pane shows: drawn again only when another is selected, so that a redraw
// of the rows (a scroll) never takes the focus from a link in the pane
let detailShown = null;

function detail() {
  const pane = $('detail');
  const u = view.shown[view.active];
  pane.hidden = !u;
  if (!u || u === detailShown) return;
  detailShown = u;
  const list = (items) => (items.length ? h('ul', null, ...items.map((i) => h('li', null, ...i))) : muted());
  const extension = (label, node) => h('div', null, h('h3', null, label), h('dl', null, ...fields(node).flatMap(([k, v]) => [h('dt', null, k), h('dd', null, /^https?:/.test(v) ? link(v) : v)])));
  pane.replaceChildren(
    h('h2', null, link(u.loc)),
    h('p', null, 'Last modified: ', u.lastmod || muted()),
    h('h3', null, 'Alternates'),
    list(u.alternates.map(([lang, href]) => [h('span', { class: 'lang' }, lang), ' ', link(href)])),
    h('h3', null, 'Images'),
    list(u.images.map((src) => [link(src)])),
    u.news ? extension('News', u.news) : null,
    ...u.videos.map((v) => extension('Video', v)),
  );
}

function onKey(e) {
  const page = Math.max(1, Math.floor($('rows').clientHeight / rowHeight) - 1);
  const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
  if (e.key in moves) select(view.active + moves[e.key]);
  else if (e.key === 'Home') select(0);
  else if (e.key === 'End') select(view.shown.length - 1);
  else if (e.key === 'Enter') {
    const first = $('detail').querySelector('a');
    if (first) first.focus();
  } else return;
  e.preventDefault();
}

// ------------------------------------------------------------------ routing (#file=…&q=…&sort=…&dir=…)
function state() {
  return new URLSearchParams(location.hash.slice(1));
}

function remember() {
  const s = state();
  const q = $('search').value;
  q ? s.set('q', q) : s.delete('q');
  view.sort ? (s.set('sort', view.sort), s.set('dir', view.dir > 0 ? 'asc' : 'desc')) : (s.delete('sort'), s.delete('dir'));
  history.replaceState(null, '', '#' + s.toString());
}

async function route() {
  const s = state();
  const file = s.get('file');
  try {
    if (file && FILE_NAME.test(file)) await showFile(file, s.get('q') || '', s.get('sort'), s.get('dir'));
    else await showIndex(s.get('q') || '');
  } catch (err) {
    status(`Could not show it: ${err.message}`);
  }
}

// The rows' height is the style's (--row-height): read at the start and when the window is
// resized across the narrow layout's width, then the list is laid out again.
function measureRows() {
  const height = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--row-height'));
  if (!height || height === rowHeight) return;
  rowHeight = height;
  if (!$('file-view').hidden) {
    $('spacer').style.height = view.shown.length * rowHeight + 'px';
    render();
  }
}

function start() {
  measureRows();
  window.addEventListener('resize', measureRows);
  let typed = null;
  $('search-all').addEventListener('input', () => {
    clearTimeout(typed);
    typed = setTimeout(() => {
      const query = $('search-all').value;
      history.replaceState(null, '', needle(query) ? '#' + new URLSearchParams({ q: query.trim() }).toString() : '#');
      if (needle(query)) searchAll(query);
      else {
        searchAll('');
        indexFiles().then(startCounting);
      }
    }, 200);
  });
  $('rows').addEventListener('scroll', () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(render);
    }
  });
  $('rows').addEventListener('keydown', onKey);
  $('search').addEventListener('input', () => {
    apply();
    remember();
  });
  $('search').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === 'ArrowDown') {
      $('rows').focus();
      e.preventDefault();
    }
  });
  for (const button of document.querySelectorAll('button[data-sort]')) {
    button.addEventListener('click', () => {
      const key = button.dataset.sort;
      view.dir = view.sort === key ? -view.dir : 1;
      view.sort = key;
      apply();
      remember();
    });
  }
  document.addEventListener('keydown', (e) => {
    const box = $('file-view').hidden ? $('search-all') : $('search');
    if (e.key === '/' && document.activeElement !== box) {
      box.focus();
      e.preventDefault();
    }
  });
  window.addEventListener('hashchange', route);
  route();
}

globalThis.sitemapView = { readable, timings };
start();
