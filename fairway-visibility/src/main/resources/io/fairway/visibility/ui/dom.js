// Small DOM helpers: every view builds its elements with h(), never with innerHTML, so that no text from the
// API is ever parsed as markup, and no inline style attribute is needed (the page's Content-Security-Policy
// forbids them; sizes set through element.style are allowed).

/**
 * Creates an element.
 * @param {string} tag the tag name, optionally with classes: "div.bar.borrowed"
 * @param {object|null} attrs attributes; "on*" keys add listeners, "style" an object of style properties,
 *     booleans set or omit the attribute, null/undefined values are skipped
 * @param  {...any} children strings, numbers, nodes, arrays of those, or null (skipped)
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name);
  if (classes.length) el.className = classes.join(' ');
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === 'style' && typeof value === 'object') {
      Object.assign(el.style, value);
    } else if (key === 'class') {
      el.className = [el.className, value].filter(Boolean).join(' ');
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** A link to a route of this page (#/...), with a key that keeps keyboard focus across refreshes. */
export function link(route, text, attrs = {}) {
  return h('a', { href: '#' + route, 'data-key': 'link:' + route, ...attrs }, text);
}

/** A table with a caption, header cells and rows (arrays of cells). */
export function table(caption, headers, rows, attrs = {}) {
  return h('table', attrs,
    caption ? h('caption', null, caption) : null,
    h('thead', null, h('tr', null, headers.map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', null, rows.map((cells) => h('tr', null, cells.map((c) => h('td', null, c))))));
}

/**
 * Formats a quantity in its base unit (the API's convention): cpu in millicores → cores, memory in bytes → GiB,
 * anything else (nvidia.com/gpu) as a plain number.
 */
export function quantity(resource, value) {
  if (value === null || value === undefined) return '–';
  if (resource === 'cpu') return formatNumber(value / 1000);
  if (/memory|storage/i.test(resource)) return formatNumber(value / (1024 * 1024 * 1024)) + ' GiB';
  return formatNumber(value);
}

/** A short unit-free name of a resource for running text: "nvidia.com/gpu" → "GPUs". */
export function resourceName(resource) {
  if (resource === 'nvidia.com/gpu') return 'GPUs';
  if (resource === 'cpu') return 'CPUs';
  return resource;
}

/** A number with grouping and at most two decimals. */
export function formatNumber(value) {
  return Number(value).toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** Seconds as "1h 02m 03s" / "2m 05s" / "42s". */
export function duration(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return '–';
  const s = Math.round(seconds);
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (hours) return `${hours}h ${String(minutes).padStart(2, '0')}m ${String(rest).padStart(2, '0')}s`;
  if (minutes) return `${minutes}m ${String(rest).padStart(2, '0')}s`;
  return `${rest}s`;
}

// Under a controller the scheduler's clock is epoch milliseconds; in a simulation, milliseconds from the start.
const EPOCH_FROM = 365 * 24 * 3600 * 1000 * 10;

/** A time of the scheduler's clock: "t+2m 30s" in a simulation, a local date and time under a controller. */
export function when(millis) {
  if (millis === null || millis === undefined) return '–';
  if (millis < EPOCH_FROM) return 't+' + duration(millis / 1000);
  const date = new Date(millis);
  const time = date.toLocaleTimeString('en-GB');
  return date.toDateString() === new Date().toDateString() ? time : date.toISOString().slice(0, 10) + ' ' + time;
}

/** A short readable name for a job state: "QUOTA_RESERVED" → "quota reserved". */
export function stateLabel(state) {
  return String(state || '').toLowerCase().replaceAll('_', ' ');
}

/** A badge for a job state; the text says the state, the colour only repeats it. */
export function stateBadge(state) {
  return h('span.badge', { class: 'state-' + String(state || '').toLowerCase() }, stateLabel(state));
}

// Twelve light colours 30° of hue apart (HSL lightness 78 %), ordered so that the first jobs of a page get hues far
// apart (0°, 180°, 90°, 270°, ...); dark text keeps a contrast above 8:1 on each.
export const PALETTE = ['#f19d9d', '#9df1f1', '#c7f19d', '#c79df1', '#f1c79d', '#9dc7f1', '#9df19d', '#f19df1',
  '#f1f19d', '#9d9df1', '#9df1c7', '#f19dc7'];

/** A stable colour for a job id, for a job shown alone. */
export function jobColour(jobId) {
  let hash = 0;
  for (const ch of String(jobId)) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

/**
 * Colours for the jobs on one page: different jobs get different palette colours (up to twelve of them, in the
 * order of their ids), so one job has one colour on every node of the page and two jobs never look alike.
 */
export function jobColours(jobIds) {
  const ids = [...new Set(jobIds)].sort();
  const colours = new Map(ids.map((id, i) => [id, PALETTE[i % PALETTE.length]]));
  return (id) => colours.get(id) || jobColour(id);
}

/**
 * A reason's message without the words that only repeat its code: "preempted by b1" for PREEMPTED with
 * "preempted: preempted by b1".
 */
export function reasonMessage(reason) {
  const words = String(reason.code || '').toLowerCase().replace(/_/g, ' ');
  let rest = String(reason.message || '');
  while (words && rest.toLowerCase().startsWith(words + ': ')) rest = rest.slice(words.length + 2);
  return rest;
}

/** Creates an SVG element (charts); attributes as in h(), children nodes or strings. */
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * Goes to another address of the same view (a filter, a sort, a page) and keeps the keyboard focus on the control
 * with this data-key instead of moving it to the heading.
 */
export function go(route, focusKey) {
  window.fairwayKeepFocus = focusKey || null;
  window.location.hash = '#' + route;
}

/** "route?key=value&...": the route with the non-empty parameters. */
export function withQuery(route, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== null && v !== undefined && v !== '') q.set(k, v);
  }
  const s = q.toString();
  return s ? `${route}?${s}` : route;
}

/** First / previous / range / next / last buttons over an offset-paged answer; label names what is paged. */
export function offsetPager(label, page, goTo) {
  const from = page.total ? page.offset + 1 : 0;
  const to = page.offset + page.items.length;
  const last = Math.max(0, Math.floor((page.total - 1) / page.limit) * page.limit);
  const button = (text, offset, disabled, key) =>
    h('button', { type: 'button', onclick: () => goTo(offset, 'page:' + key), disabled, 'data-key': 'page:' + key }, text);
  return h('nav.pager', { 'aria-label': label },
    button('« First', 0, page.offset === 0, 'first'),
    button('← Previous', Math.max(0, page.offset - page.limit), page.offset === 0, 'prev'),
    h('span', { 'data-field': 'range' }, `${formatNumber(from)}–${formatNumber(to)} of ${formatNumber(page.total)}`),
    button('Next →', page.offset + page.limit, page.offset + page.limit >= page.total, 'next'),
    button('Last »', last, page.offset >= last, 'last'));
}

/** A share 0..1 as "42 %". */
export function percent(share) {
  if (share === null || share === undefined) return '–';
  return (100 * share).toLocaleString('en-US', { maximumFractionDigits: 1 }) + ' %';
}
