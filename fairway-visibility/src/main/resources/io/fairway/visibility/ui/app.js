// Fairway UI: a hash router over the visibility API, live updates that follow the server's event stream
// (GET /api/v1/events/watch, the stream `fairway ctl watch` reads too) instead of polling, and the simulation's time
// control.
// No framework and no build step: ES modules served from the jar.
import { h } from './dom.js';
import { ApiError } from './api.js';
import { queuesView, queueView, pendingView } from './queues.js';
import { jobView } from './job.js';
import { nodesView, nodeView } from './nodes.js';
import { eventsView } from './events.js';
import { jobsView, jobSetView } from './jobs.js';
import { overviewView } from './overview.js';
import { flavorsView, flavorView } from './flavors.js';
import { fairnessView } from './fairness.js';
import { historyView } from './history.js';
import { SimulationControl } from './simulation.js';

// Changes that arrive together (one round admits many jobs) cause one redraw, this long after the first.
const SETTLE_MS = 250;
// Without a stream (the server refused one): how often the page looks, and when it tries the stream again.
const FALLBACK_MS = 5000;
const RETRY_STREAM_MS = 30000;

// Each route: a pattern over the path segments after '#/', the section its nav link marks, and the view.
// A view is { title(params), load(params, query) → data, render(data, params, query) → Node, summary(data) }.
const ROUTES = [
  { name: 'queues', match: [], section: 'queues', view: queuesView },
  { name: 'queues', match: ['queues'], section: 'queues', view: queuesView },
  { name: 'queue', match: ['queues', ':queue'], section: 'queues', view: queueView },
  { name: 'pending', match: ['pending'], section: 'pending', view: pendingView },
  { name: 'overview', match: ['overview'], section: 'overview', view: overviewView },
  { name: 'jobs', match: ['jobs'], section: 'jobs', view: jobsView },
  { name: 'job', match: ['jobs', ':job'], section: 'jobs', view: jobView },
  { name: 'jobset', match: ['jobsets', ':jobSet'], section: 'jobs', view: jobSetView },
  { name: 'fairness', match: ['fairness'], section: 'fairness', view: fairnessView },
  { name: 'history', match: ['history'], section: 'history', view: historyView },
  { name: 'flavors', match: ['flavors'], section: 'flavors', view: flavorsView },
  { name: 'flavor', match: ['flavors', ':flavor'], section: 'flavors', view: flavorView },
  { name: 'nodes', match: ['nodes'], section: 'nodes', view: nodesView },
  { name: 'node', match: ['nodes', ':node'], section: 'nodes', view: nodeView },
  { name: 'events', match: ['events'], section: 'events', view: eventsView },
];

const main = document.getElementById('main');
const announcer = document.getElementById('announce');
const updated = document.getElementById('updated');
const liveToggle = document.getElementById('live-toggle');
const streamStatus = document.getElementById('stream');

let current = null; // { route, params, query, key, dataJson, summary }
let generation = 0; // bumps on every navigation, so a slow answer for an old route is dropped
let stream = null; // the EventSource while live updates are on
let settle = null; // the pending redraw after a change arrived
let fallback = null; // the timer while the server refuses a stream
const simulation = new SimulationControl(() => refresh(true));

/** Splits '#/queues/team-a?offset=50' into decoded segments and a query. */
function parseHash() {
  const raw = window.location.hash.replace(/^#\/?/, '');
  const [path, search] = raw.split('?');
  const segments = path.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
  return { segments, query: new URLSearchParams(search || '') };
}

function resolve(segments) {
  for (const route of ROUTES) {
    if (route.match.length !== segments.length) continue;
    const params = {};
    const ok = route.match.every((part, i) => {
      if (part.startsWith(':')) {
        params[part.slice(1)] = segments[i];
        return true;
      }
      return part === segments[i];
    });
    if (ok) return { route, params };
  }
  return null;
}

function markSection(section) {
  for (const a of document.querySelectorAll('nav a[data-section]')) {
    if (a.dataset.section === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function announce(text) {
  // Re-setting the same text is not announced again by screen readers: clear first.
  announcer.textContent = '';
  window.setTimeout(() => { announcer.textContent = text; }, 50);
}

function showError(error) {
  const message = error instanceof ApiError
    ? (error.status === 404 ? 'Not found: ' : (error.status ? `The API answered ${error.status}: ` : '')) + error.message
    : 'Something went wrong: ' + error.message;
  return h('div.error', { role: 'alert' }, h('p', null, message),
    h('p', null, h('a', { href: '#/queues' }, 'Back to the queues')));
}

/** Navigation: load and render the route of the current hash, then move focus to its heading. */
async function navigate() {
  const { segments, query } = parseHash();
  const resolved = resolve(segments);
  const gen = ++generation;
  if (!resolved) {
    markSection(null);
    main.replaceChildren(h('h2', { tabindex: '-1' }, 'No such page'), showError(new Error('unknown address ' + window.location.hash)));
    current = null;
    return;
  }
  const { route, params } = resolved;
  markSection(route.section);
  document.title = route.view.title(params) + ' · Fairway';
  current = { route, params, query, key: window.location.hash, dataJson: null, summary: null };
  main.setAttribute('aria-busy', 'true');
  await load(gen, true);
  if (gen !== generation) return;
  main.removeAttribute('aria-busy');
  const heading = main.querySelector('h2');
  const keep = window.fairwayKeepFocus;
  window.fairwayKeepFocus = null;
  const control = keep ? main.querySelector(`[data-key="${CSS.escape(keep)}"]`) : null;
  if (control) {
    // A filter, sort or page of the same view: the focus stays on the control that changed it.
    control.focus({ preventScroll: true });
  } else if (heading && navigated) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: false });
  }
  navigated = true;
}
let navigated = false; // the first load keeps focus where the browser put it (the top of the page)

async function load(gen, firstRender) {
  const { route, params, query } = current;
  let data;
  try {
    data = await route.view.load(params, query);
  } catch (error) {
    if (gen !== generation) return;
    if (firstRender) {
      main.replaceChildren(h('h2', null, route.view.title(params)), showError(error));
      main.dataset.view = 'error';
      main.dataset.route = current.key;
    } else if (main.dataset.view === 'error') {
      // The page already says what went wrong (a job or node that does not exist): a refresh that fails too
      // changes nothing, and is no "update failed".
    } else if (error instanceof ApiError && error.status === 404) {
      // What the page shows is gone (a node removed, a job forgotten): say so instead of keeping stale data.
      main.replaceChildren(h('h2', null, route.view.title(params)), showError(error));
      main.dataset.view = 'error';
      main.dataset.route = current.key;
    } else {
      updated.textContent = 'update failed';
    }
    return;
  }
  if (gen !== generation) return;
  const json = JSON.stringify(data);
  if (!firstRender && json === current.dataJson) {
    stamp();
    return;
  }
  current.dataJson = json;
  render(route, data, params, query);
  const summary = route.view.summary ? route.view.summary(data, params) : null;
  if (!firstRender && summary && summary !== current.summary) announce('Updated: ' + summary);
  current.summary = summary;
  stamp();
  if (firstRender) {
    // "fairway:queues-rendered" etc.: read by the browser test for the load times in docs/guides/ui.md.
    performance.mark(`fairway:${route.name}-rendered`);
  }
}

/** Replaces the view, keeping keyboard focus on the same link or control when it still exists. */
function render(route, data, params, query) {
  const active = document.activeElement && main.contains(document.activeElement) ? document.activeElement : null;
  const focusKey = active ? active.dataset.key : null;
  // Text being typed into a search field is kept across a redraw.
  const typing = active && active.tagName === 'INPUT' ? { value: active.value, start: active.selectionStart, end: active.selectionEnd } : null;
  const scroll = window.scrollY;
  const node = route.view.render(data, params, query);
  main.replaceChildren(node);
  // Which page is shown, for tests and scripts: the view's name and the address it was rendered for.
  main.dataset.view = route.name;
  main.dataset.route = current.key;
  if (focusKey) {
    const again = main.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (again) {
      if (typing && again.tagName === 'INPUT') {
        again.value = typing.value;
        try {
          again.setSelectionRange(typing.start, typing.end);
        } catch (e) {
          // not a text field
        }
      }
      again.focus({ preventScroll: true });
    }
  }
  window.scrollTo(0, scroll);
}

function stamp() {
  updated.textContent = 'updated ' + new Date().toLocaleTimeString('en-GB');
}

// One refresh at a time, so a slow answer is never overtaken by a later one; a refresh asked for meanwhile (the
// time control moved) runs right after.
let refreshing = false;
let again = false;

async function refresh(asked) {
  if (!current) return;
  if (refreshing) {
    again = again || Boolean(asked); // a change from the stream waits for the refresh under way
    return;
  }
  refreshing = true;
  try {
    await Promise.all([load(generation, false), simulation.poll()]);
  } finally {
    refreshing = false;
  }
  if (again) {
    again = false;
    refresh(true);
  }
}

/** Something changed on the server: redraw once the burst has settled (unless the tab is hidden). */
function changed() {
  if (settle || document.hidden) return;
  settle = window.setTimeout(() => {
    settle = null;
    refresh(true);
  }, SETTLE_MS);
}

/** Follows the server's event stream while live updates are on; the browser reconnects by itself after a drop. */
function follow() {
  window.clearInterval(fallback);
  fallback = null;
  if (stream) {
    stream.close();
    stream = null;
  }
  if (!liveToggle.checked) {
    streamStatus.textContent = 'paused';
    streamStatus.dataset.stream = 'paused';
    return;
  }
  stream = new EventSource('/api/v1/events/watch');
  stream.addEventListener('open', () => {
    streamStatus.textContent = 'live';
    streamStatus.dataset.stream = 'live';
  });
  stream.addEventListener('hello', changed); // (re)connected: catch up on what happened meanwhile
  stream.addEventListener('event', changed);
  stream.addEventListener('state', changed);
  stream.addEventListener('error', () => {
    if (stream && stream.readyState === EventSource.CLOSED) {
      // Refused (the server's streams are all taken, e.g. by many open tabs): look every 5 s instead, and try the
      // stream again in 30 s.
      stream = null;
      streamStatus.textContent = 'no stream: checking every 5 s';
      streamStatus.dataset.stream = 'fallback';
      window.clearInterval(fallback);
      fallback = window.setInterval(() => { if (!document.hidden) refresh(true); }, FALLBACK_MS);
      window.setTimeout(() => { if (liveToggle.checked && !stream) follow(); }, RETRY_STREAM_MS);
      return;
    }
    streamStatus.textContent = 'reconnecting…';
    streamStatus.dataset.stream = 'reconnecting';
  });
}

// The skip link moves the focus to the content; it must not change the address (the router owns the hash).
document.querySelector('[data-skip]').addEventListener('click', (event) => {
  event.preventDefault();
  const heading = main.querySelector('h2');
  (heading || main).setAttribute('tabindex', '-1');
  (heading || main).focus();
});

liveToggle.addEventListener('change', () => {
  follow();
  announce(liveToggle.checked ? 'Live updates on' : 'Live updates paused');
});
window.addEventListener('hashchange', navigate);
document.addEventListener('visibilitychange', () => { if (!document.hidden) refresh(); });

simulation.start();
navigate();
follow();
