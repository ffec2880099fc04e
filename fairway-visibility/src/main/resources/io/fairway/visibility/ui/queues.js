// Queues and cohorts (usage against quota, borrowing and lending), one ClusterQueue with its pending jobs (paged),
// and the pending overview of every queue.
import { get, seg } from './api.js';
import { h, link, table, quantity, resourceName, formatNumber, stateBadge, when, reasonMessage } from './dom.js';

const PAGE = 50;

/**
 * One usage bar for a flavor and resource: used against nominal quota, the part above nominal (borrowed from the
 * cohort) hatched, the nominal quota marked. The same figures are written out beside it for screen readers.
 */
export function usageBar(u, cohort) {
  const nominal = u.nominal || 0;
  const used = u.used || 0;
  const scale = Math.max(nominal, used, 1);
  const borrowed = u.borrowed !== undefined && u.borrowed !== null ? u.borrowed : Math.max(0, used - nominal);
  // A queue borrows above its nominal quota; a cohort's borrowing is inside its own used quota, so its bar is
  // used − borrowed plain, then the borrowed part hatched.
  const within = cohort === true ? Math.max(0, Math.min(used, nominal) - borrowed) : Math.min(used, nominal);
  const q = (x) => quantity(u.resource, x);
  let words;
  if (cohort === true) {
    // A cohort's borrowed quota is its own members' lendable quota, lent between them: not more than it has.
    const stillLendable = Math.max(0, Math.min((u.lendable || 0) - borrowed, nominal - used));
    words = `${q(used)} of ${q(nominal)} used`
      + (borrowed ? `, ${q(borrowed)} of it lent from one of its queues to another` : '')
      + (stillLendable ? `, ${q(stillLendable)} more lendable` : '');
  } else if (!nominal) {
    words = `${q(used)} borrowed from the cohort (no quota of its own)`;
  } else {
    words = `${q(used)} of ${q(nominal)} used`
      + (borrowed ? `, ${q(borrowed)} borrowed` : '')
      + (u.lendable ? `, ${q(u.lendable)} lendable` : '');
  }
  const limits = [
    u.borrowingLimit !== null && u.borrowingLimit !== undefined ? `borrowing limit ${quantity(u.resource, u.borrowingLimit)}` : null,
    u.lendingLimit !== null && u.lendingLimit !== undefined ? `lending limit ${quantity(u.resource, u.lendingLimit)}` : null,
  ].filter(Boolean).join(', ');
  return h('div.usage', { 'data-resource': u.resource, 'data-flavor': u.flavor },
    h('div.label', null, h('span', null, `${resourceName(u.resource)} · ${u.flavor}`),
      h('span.words', { 'data-field': 'usage' }, words)),
    h('div.bar', { 'aria-hidden': 'true' },
      h('span.fill', { style: { width: pct(within, scale) } }),
      borrowed ? h('span.fill.borrowed', { style: { left: pct(within, scale), width: pct(Math.min(borrowed, scale - within), scale) } }) : null,
      nominal < scale ? h('span.nominal', { style: { left: pct(nominal, scale) } }) : null),
    limits ? h('div.limits', null, limits) : null);
}

/** A queue's rows worth a bar: a resource with quota, or one it uses (borrowing); not "0 of 0 used". */
function covered(resources) {
  return (resources || []).filter((u) => (u.nominal || 0) > 0 || (u.used || 0) > 0);
}

function pct(part, whole) {
  return (100 * part / whole).toFixed(2) + '%';
}

function legend() {
  return h('p.legend', { 'aria-hidden': 'true' },
    h('span', null, h('span.swatch.used'), 'used within nominal quota'),
    h('span', null, h('span.swatch.borrowed'), 'borrowed from the cohort'),
    h('span', null, h('span.swatch.nominal'), 'nominal quota'),
    h('span', null, h('span.swatch.free'), 'unused'));
}

function queueCard(q) {
  return h('article.card', { 'data-queue': q.name, 'aria-labelledby': 'cq-' + q.name },
    h('h4', { id: 'cq-' + q.name }, link('/queues/' + seg(q.name), q.name, { 'data-key': 'cq:' + q.name }),
      q.stopped ? [' ', h('span.badge.state-failed', null, 'stopped')] : null),
    h('ul.facts', null,
      h('li', null, 'pending ', h('strong', { 'data-field': 'pending' }, formatNumber(q.pending || 0))),
      h('li', null, 'holding ', h('strong', { 'data-field': 'holding' }, formatNumber(q.holding || 0))),
      h('li', null, 'running ', h('strong', { 'data-field': 'running' }, formatNumber(q.running || 0)))),
    covered(q.resources).length ? covered(q.resources).map((u) => usageBar(u))
      : h('p.empty', null, q.cohort ? 'no quota of its own and nothing borrowed' : 'no quota'));
}

export const queuesView = {
  title: () => 'Queues',
  async load() {
    const [cohorts, clusterQueues, localQueues] = await Promise.all([
      get('/cohorts'), get('/clusterqueues'), get('/localqueues')]);
    return { cohorts: cohorts.items, clusterQueues: clusterQueues.items, localQueues: localQueues.items };
  },
  summary: (data) => data.clusterQueues
    .map((q) => `${q.name} ${q.pending || 0} pending, ${q.holding || 0} holding quota`).join('; '),
  render(data) {
    const queues = data.clusterQueues;
    const cohorts = data.cohorts;
    const byCohort = new Map(cohorts.map((c) => [c.name, []]));
    const alone = [];
    for (const q of queues) {
      if (q.cohort && byCohort.has(q.cohort)) byCohort.get(q.cohort).push(q);
      else alone.push(q);
    }
    return h('div', null,
      h('h2', null, 'Queues and cohorts'),
      h('p.lead', null, `${queues.length} ClusterQueue${queues.length === 1 ? '' : 's'} in ${cohorts.length} cohort${cohorts.length === 1 ? '' : 's'}. `
        + 'Each bar is one resource of one flavor: used against nominal quota, hatched where a queue borrows from its cohort.'),
      legend(),
      cohorts.map((c) => h('section.cohort', { 'aria-labelledby': 'cohort-' + c.name, 'data-cohort': c.name },
        h('h3', { id: 'cohort-' + c.name }, 'Cohort ', c.name,
          c.parent ? h('span.lead', null, ` (in ${c.parent})`) : null),
        covered(c.resources).map((u) => usageBar(u, true)),
        h('div.cards', null, byCohort.get(c.name).map(queueCard)))),
      alone.length ? h('section', { 'aria-labelledby': 'no-cohort' },
        h('h3', { id: 'no-cohort' }, 'Without a cohort'), h('div.cards', null, alone.map(queueCard))) : null,
      localQueues(data.localQueues));
  },
};

function localQueues(locals) {
  if (!locals.length) return null;
  return h('section', { 'aria-labelledby': 'lq' },
    h('h3', { id: 'lq' }, 'LocalQueues'),
    table(null, ['Namespace', 'LocalQueue', 'ClusterQueue', 'Pending', 'Holding'],
      locals.map((l) => [l.namespace, l.name, link('/queues/' + seg(l.clusterQueue), l.clusterQueue,
        { 'data-key': 'lq:' + l.namespace + '/' + l.name }),
      formatNumber(l.pending || 0), formatNumber(l.holding || 0)])));
}

/** A table of pending jobs in the order the engine considers them, with positions and reasons. */
export function pendingTable(caption, jobs) {
  if (!jobs.length) return h('p.empty', null, 'No job is pending here.');
  return table(caption, ['Position', 'Job', 'LocalQueue', 'Priority', 'GPUs', 'Waiting since', 'Reason'],
    jobs.map((j) => [
      h('span', { 'data-field': 'position' }, formatNumber(j.position)),
      link('/jobs/' + seg(j.id), j.id, { 'data-key': 'job:' + j.id, 'data-job': j.id }),
      `${j.namespace}/${j.localQueue}`,
      formatNumber(j.priority || 0),
      formatNumber(j.gpus || 0),
      h('span.nowrap', null, when(j.waitingSinceMillis)),
      h('span.reason', { 'data-field': 'reason' }, h('span.code', null, j.reason.code), ' ', reasonMessage(j.reason)),
    ]), { class: 'pending', 'data-pending': '' });
}

function pager(route, page) {
  const from = page.total ? page.offset + 1 : 0;
  const to = page.offset + page.items.length;
  const last = Math.max(0, Math.floor((page.total - 1) / page.limit) * page.limit);
  const go = (offset) => () => { window.location.hash = `#${route}?offset=${offset}`; };
  const button = (label, offset, disabled, key) =>
    h('button', { type: 'button', onclick: go(offset), disabled, 'data-key': 'page:' + key }, label);
  return h('nav.pager', { 'aria-label': 'Pages of pending jobs' },
    button('« First', 0, page.offset === 0, 'first'),
    button('← Previous', Math.max(0, page.offset - page.limit), page.offset === 0, 'prev'),
    h('span', { 'data-field': 'range' }, `${formatNumber(from)}–${formatNumber(to)} of ${formatNumber(page.total)}`),
    button('Next →', page.offset + page.limit, page.offset + page.limit >= page.total, 'next'),
    button('Last »', last, page.offset >= last, 'last'));
}

export const queueView = {
  title: (p) => 'Queue ' + p.queue,
  async load(p, query) {
    const offset = Math.max(0, parseInt(query.get('offset') || '0', 10) || 0);
    const [queue, pending, running] = await Promise.all([
      get('/clusterqueues/' + seg(p.queue)),
      get('/clusterqueues/' + seg(p.queue) + '/pending', { offset, limit: PAGE }),
      get('/running', { clusterQueue: p.queue, limit: PAGE }),
    ]);
    return { queue, pending, running };
  },
  summary: (d) => `${d.queue.name}: ${d.pending.total} pending, ${d.queue.holding || 0} holding quota`,
  render({ queue, pending, running }, p) {
    const route = '/queues/' + seg(p.queue);
    return h('div', { 'data-queue': queue.name },
      h('p.crumbs', null, link('/queues', 'Queues'), ' › ClusterQueue'),
      h('h2', null, 'ClusterQueue ', queue.name),
      h('ul.facts', null,
        queue.cohort ? h('li', null, 'cohort ', h('strong', null, queue.cohort)) : null,
        h('li', null, 'pending ', h('strong', null, formatNumber(pending.total))),
        h('li', null, 'holding ', h('strong', null, formatNumber(queue.holding || 0))),
        h('li', null, 'running ', h('strong', null, formatNumber(queue.running || 0))),
        (queue.localQueues || []).length ? h('li', null, 'LocalQueues ',
          h('strong', null, queue.localQueues.map((l) => `${l.namespace}/${l.name}`).join(', '))) : null,
        queue.stopped ? h('li', null, h('strong', null, 'stopped')) : null),
      legend(),
      h('div.card', null, covered(queue.resources).length ? covered(queue.resources).map((u) => usageBar(u))
        : h('p.empty', null, 'no quota of its own and nothing borrowed')),
      h('h3', { id: 'pending-heading' }, 'Pending, in the order the scheduler considers them'),
      pager(route, pending),
      pendingTable(null, pending.items),
      runningTable(running));
  },
};

function runningTable(running) {
  const items = running.items;
  return h('section', { 'aria-labelledby': 'running-heading' },
    h('h3', { id: 'running-heading' }, `Holding quota (${formatNumber(running.total)})`),
    items.length ? table(null, ['Job', 'State', 'Since', 'Nodes and GPUs'], items.map((j) => [
      link('/jobs/' + seg(j.id), j.id, { 'data-key': 'job:' + j.id, 'data-job': j.id }),
      stateBadge(j.state),
      h('span.nowrap', null, when(j.stateSinceMillis)),
      (j.placement ? j.placement.members : []).map((m, i) => [i ? '; ' : '',
        link('/nodes/' + seg(m.node) + '?job=' + seg(j.id), m.node, { 'data-key': `run:${j.id}:${m.podSet}:${m.index}` }),
        ` GPUs ${m.gpus.length ? m.gpus.join(',') : 'none'}`]),
    ])) : h('p.empty', null, 'No job holds quota here.'));
}

export const pendingView = {
  title: () => 'Pending',
  async load() {
    const queues = await get('/clusterqueues');
    return Promise.all(queues.items.map((q) =>
      get('/clusterqueues/' + seg(q.name) + '/pending', { offset: 0, limit: 5 }).then((page) => ({ q, page }))));
  },
  summary: (tops) => tops.map(({ q, page }) => `${q.name} ${page.total} pending`).join('; '),
  render(tops) {
    return h('div', null,
      h('h2', null, 'Pending jobs'),
      h('p.lead', null, 'The first jobs of each ClusterQueue, in the order the scheduler considers them, '
        + 'with why each waits. Open a queue for all of them, or a job for its history.'),
      tops.map(({ q, page }) => h('section', { 'aria-labelledby': 'p-' + q.name, 'data-queue': q.name },
        h('h3', { id: 'p-' + q.name }, link('/queues/' + seg(q.name), q.name, { 'data-key': 'pq:' + q.name }),
          ` — ${formatNumber(page.total)} pending`),
        pendingTable(null, page.items))));
  },
};
