// Every job: a table searched by id or job set, filtered by state, ClusterQueue, namespace and job set, sorted by a
// column and paged (GET /api/v1/jobs); and a job set's own page.
import { get, seg } from './api.js';
import { h, link, table, formatNumber, stateBadge, stateLabel, when, go, withQuery, offsetPager } from './dom.js';

const PAGE = 50;
const STATES = ['PENDING', 'QUOTA_RESERVED', 'ADMITTED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
// Columns: label, the API's sort key (null: not sortable), the cell.
const COLUMNS = [
  ['Job', 'id', (j) => link('/jobs/' + seg(j.id), j.id, { 'data-key': 'job:' + j.id, 'data-job': j.id })],
  ['State', 'state', (j) => stateBadge(j.state)],
  ['Since', 'stateSince', (j) => h('span.nowrap', null, when(j.stateSinceMillis))],
  ['ClusterQueue', 'clusterQueue', (j) => j.clusterQueue
    ? link('/queues/' + seg(j.clusterQueue), j.clusterQueue, { 'data-key': `jcq:${j.id}` }) : '–'],
  ['Namespace / LocalQueue', 'namespace', (j) => `${j.namespace}/${j.localQueue}`],
  ['Job set', 'jobSet', (j) => link('/jobsets/' + seg(j.jobSet), j.jobSet, { 'data-key': `jset:${j.id}` })],
  ['Owner', 'owner', (j) => j.owner || '–'],
  ['Priority', 'priority', (j) => formatNumber(j.priority || 0)],
  ['GPUs', 'gpus', (j) => formatNumber(j.gpus || 0)],
  ['Submitted', 'submitted', (j) => h('span.nowrap', null, when(j.submitTimeMillis))],
];

function filters(query) {
  const f = {};
  for (const key of ['q', 'state', 'clusterQueue', 'namespace', 'jobSet', 'sort', 'order', 'offset']) {
    const v = query.get(key);
    if (v) f[key] = v;
  }
  return f;
}

export const jobsView = {
  title: () => 'Jobs',
  async load(p, query) {
    const f = filters(query);
    const [page, queues, locals] = await Promise.all([
      get('/jobs', { ...f, limit: PAGE }), get('/clusterqueues'), get('/localqueues')]);
    return { f, page, queues: queues.items.map((q) => q.name), namespaces: [...new Set(locals.items.map((l) => l.namespace))].sort() };
  },
  summary: (d) => `${d.page.total} jobs match`,
  render({ f, page, queues, namespaces }) {
    const to = (changes, focusKey) => go(withQuery('/jobs', { ...f, offset: null, ...changes }), focusKey);
    const form = h('form.filters', {
      role: 'search', 'aria-label': 'Search and filter jobs',
      onsubmit: (e) => {
        e.preventDefault();
        const data = new FormData(e.target);
        to({ q: data.get('q'), jobSet: data.get('jobSet') }, 'f:apply');
      },
    },
    h('label', null, 'Search id or job set ',
      h('input', { type: 'search', name: 'q', value: f.q || '', 'data-key': 'f:q', autocomplete: 'off' })),
    h('label', null, 'State ', select('f:state', f.state, [['', 'any state'], ...STATES.map((s) => [s, stateLabel(s)])],
      (v) => to({ state: v }, 'f:state'))),
    h('label', null, 'ClusterQueue ', select('f:cq', f.clusterQueue, [['', 'any queue'], ...queues.map((q) => [q, q])],
      (v) => to({ clusterQueue: v }, 'f:cq'))),
    h('label', null, 'Namespace ', select('f:ns', f.namespace, [['', 'any namespace'], ...namespaces.map((n) => [n, n])],
      (v) => to({ namespace: v }, 'f:ns'))),
    h('label', null, 'Job set ', h('input', { type: 'text', name: 'jobSet', value: f.jobSet || '', 'data-key': 'f:jobset', size: 12 })),
    h('button', { type: 'submit', 'data-key': 'f:apply' }, 'Apply'),
    Object.keys(f).some((k) => ['q', 'state', 'clusterQueue', 'namespace', 'jobSet'].includes(k))
      ? h('button', { type: 'button', 'data-key': 'f:clear', onclick: () => go('/jobs', 'f:q') }, 'Clear filters') : null);
    const counts = page.counts || {};
    const chips = h('p.chips', { 'aria-label': 'Matching jobs by state' },
      STATES.filter((s) => counts[s]).map((s) => h('button.chip', {
        type: 'button', 'aria-pressed': String(f.state === s), 'data-key': 'chip:' + s, 'data-state': s,
        onclick: () => to({ state: f.state === s ? null : s }, 'chip:' + s),
      }, stateLabel(s), ' ', h('strong', null, formatNumber(counts[s])))));
    const sort = f.sort || 'submitted';
    const order = f.order || 'asc';
    const head = COLUMNS.map(([label, key]) => {
      const active = key === sort;
      const next = active && order === 'asc' ? 'desc' : 'asc';
      return h('th', { scope: 'col', 'aria-sort': active ? (order === 'asc' ? 'ascending' : 'descending') : 'none' },
        h('button.sort', {
          type: 'button', 'data-key': 'sort:' + key, 'data-sort': key,
          onclick: () => to({ sort: key, order: next }, 'sort:' + key),
        }, label, h('span', { 'aria-hidden': 'true' }, active ? (order === 'asc' ? ' ▲' : ' ▼') : '')));
    });
    return h('div', null,
      h('h2', null, 'Jobs'),
      h('p.lead', null, 'Every job the scheduler knows, whatever its state. Search, filter, sort by a column heading, '
        + 'and open a job or its job set.'),
      form,
      chips,
      offsetPager('Pages of jobs', page, (offset, key) => to({ offset: offset || null }, key)),
      page.items.length
        ? h('table', { 'data-jobs': '' },
          h('caption', { class: 'visually-hidden' }, `Jobs, sorted by ${sort} ${order === 'asc' ? 'ascending' : 'descending'}`),
          h('thead', null, h('tr', null, head)),
          h('tbody', null, page.items.map((j) => h('tr', { 'data-row': j.id }, COLUMNS.map(([, , cell]) => h('td', null, cell(j)))))))
        : h('p.empty', null, 'No job matches.'));
  },
};

function select(key, value, options, onChange) {
  return h('select', { 'data-key': key, onchange: (e) => onChange(e.target.value) },
    options.map(([v, label]) => h('option', { value: v, selected: (value || '') === v }, label)));
}

export const jobSetView = {
  title: (p) => 'Job set ' + p.jobSet,
  async load(p) {
    const [set, jobs, events] = await Promise.all([
      get('/jobsets/' + seg(p.jobSet)),
      get('/jobs', { jobSet: p.jobSet, limit: 1000 }),
      get('/events', { jobSet: p.jobSet, limit: 20 })]);
    return { set, jobs, events };
  },
  summary: ({ set }) => `${set.jobSet}: ` + Object.entries(set.counts).map(([s, n]) => `${n} ${stateLabel(s)}`).join(', '),
  render({ set, jobs, events }) {
    return h('div', { 'data-jobset': set.jobSet },
      h('p.crumbs', null, link('/jobs', 'Jobs'), ' › job set'),
      h('h2', null, 'Job set ', set.jobSet, ' ', set.done ? h('span.badge.state-succeeded', null, 'done') : h('span.badge.state-running', null, 'live')),
      h('ul.facts', { 'aria-label': 'Jobs by state' }, Object.entries(set.counts).map(([s, n]) =>
        h('li', { 'data-count': s }, stateLabel(s), ' ', h('strong', null, formatNumber(n))))),
      h('p', null, link(withQuery('/jobs', { jobSet: set.jobSet }), 'These jobs in the jobs table', { 'data-key': 'set-table' }),
        ' · ', link(withQuery('/events', { jobSet: set.jobSet }), 'all their events', { 'data-key': 'set-events' })),
      table(`${formatNumber(jobs.total)} jobs`, ['Job', 'State', 'Since', 'ClusterQueue', 'GPUs'], jobs.items.map((j) => [
        link('/jobs/' + seg(j.id), j.id, { 'data-key': 'job:' + j.id, 'data-job': j.id }), stateBadge(j.state),
        h('span.nowrap', null, when(j.stateSinceMillis)), j.clusterQueue || '–', formatNumber(j.gpus || 0)]), { 'data-jobs': '' }),
      h('h3', null, 'Latest events'),
      events.items.length ? table(null, ['Time', 'Event', 'Job', 'Why'], [...events.items].reverse().map((e) => [
        h('span.nowrap', null, when(e.timeMillis)), h('span.code', null, e.type), e.jobId || '', e.reason || '']))
        : h('p.empty', null, 'No events seen for this set.'));
  },
};
