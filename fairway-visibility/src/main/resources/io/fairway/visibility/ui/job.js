// One job: its state and why it waits, where each member runs (node and GPU ids), and its state history.
import { get, seg } from './api.js';
import { h, link, table, formatNumber, stateBadge, stateLabel, quantity, when, reasonMessage } from './dom.js';

function reasonBox(job) {
  if (!job.reason) return null;
  return h('section.card', { 'aria-labelledby': 'why', 'data-reason': job.reason.code },
    h('h3', { id: 'why' }, 'Why it is pending'),
    h('p.reason', null, h('span.code', { 'data-field': 'reason-code' }, job.reason.code), ' ',
      h('span', { 'data-field': 'reason' }, reasonMessage(job.reason))),
    job.position ? h('p', null, 'Position ', h('strong', { 'data-field': 'position' }, formatNumber(job.position)),
      ' in ClusterQueue ', link('/queues/' + seg(job.clusterQueue), job.clusterQueue, { 'data-key': 'job-cq' }),
      ` (${formatNumber(job.jobsAhead)} ${job.jobsAhead === 1 ? 'job' : 'jobs'} ahead)`) : null,
    job.reason.details && Object.keys(job.reason.details).length
      ? h('ul.facts', { 'aria-label': 'The numbers behind the reason' },
        Object.entries(job.reason.details).map(([k, v]) => h('li', null, k, ' ', h('strong', null, formatNumber(v)))))
      : null);
}

function placement(job) {
  const members = job.placement ? job.placement.members : [];
  if (!members.length) {
    return h('p.empty', null, job.state === 'PENDING' ? 'Not placed: the job is waiting.' : 'Holds no resources now.');
  }
  return table(null, ['Pod set', 'Member', 'Flavor', 'Node', 'GPU ids'], members.map((m) => [
    m.podSet, String(m.index), job.placement.flavors ? job.placement.flavors[m.podSet] || '' : '',
    link('/nodes/' + seg(m.node) + '?job=' + seg(job.id), m.node,
      { 'data-key': 'place:' + m.podSet + ':' + m.index, 'data-node': m.node }),
    h('span', { 'data-field': 'gpus', 'data-node': m.node }, m.gpus.length ? m.gpus.join(', ') : 'none'),
  ]), { 'data-placement': '' });
}

function history(job) {
  const entries = job.history || [];
  if (!entries.length) return h('p.empty', null, 'No history recorded.');
  return table(null, ['Time', 'Event', 'Why'], entries.map((e) => [
    h('span.nowrap', null, when(e.timeMillis)), h('span.code', null, e.type), e.reason || '',
  ]), { 'data-history': '' });
}

function podSets(job) {
  return table(null, ['Pod set', 'Members', 'Per member'], (job.podSets || []).map((p) => [
    p.name, p.minCount !== undefined && p.minCount !== p.count ? `${p.minCount}..${p.count}` : String(p.count),
    Object.entries(p.resources || {}).map(([r, v]) => `${quantity(r, v)} ${r}`).join(', '),
  ]));
}

export const jobView = {
  title: (p) => 'Job ' + p.job,
  load: (p) => get('/jobs/' + seg(p.job)),
  summary: (job) => `${job.id} is ${stateLabel(job.state)}` + (job.reason ? ': ' + job.reason.message : ''),
  render(job) {
    const nodes = job.placement ? job.placement.nodes : [];
    return h('div', { 'data-job': job.id, 'data-state': job.state },
      h('p.crumbs', null, link('/queues', 'Queues'), ' › ',
        job.clusterQueue ? link('/queues/' + seg(job.clusterQueue), job.clusterQueue, { 'data-key': 'crumb-cq' }) : '', ' › job'),
      h('h2', null, 'Job ', job.id, ' ', stateBadge(job.state)),
      h('ul.facts', null,
        h('li', null, 'state ', h('strong', { 'data-field': 'state' }, stateLabel(job.state)), ' since ', when(job.stateSinceMillis)),
        h('li', null, 'LocalQueue ', h('strong', null, `${job.namespace}/${job.localQueue}`)),
        job.jobSet ? h('li', null, 'job set ', h('strong', null, job.jobSet)) : null,
        job.owner ? h('li', null, 'owner ', h('strong', null, job.owner)) : null,
        h('li', null, 'priority ', h('strong', null, formatNumber(job.priority || 0))),
        h('li', null, 'submitted ', h('strong', null, when(job.submitTimeMillis))),
        job.preemptions ? h('li', null, 'preempted ', h('strong', null, formatNumber(job.preemptions)), '×') : null,
        job.progress >= 0 ? h('li', null, 'progress ', h('strong', null, Math.round(job.progress * 100) + '%')) : null),
      reasonBox(job),
      h('div.two-col', null,
        h('section', { 'aria-labelledby': 'placement-h' },
          h('h3', { id: 'placement-h' }, 'Placement'),
          nodes.length ? h('p', null, `${nodes.length === 1 ? 'On node' : 'Across nodes'} `,
            nodes.map((n, i) => [i ? ', ' : '', link('/nodes/' + seg(n) + '?job=' + seg(job.id), n, { 'data-key': 'pn:' + n })]),
            job.placement.locality ? ` · slowest link: ${stateLabel(job.placement.locality)}` : '') : null,
          placement(job)),
        h('section', { 'aria-labelledby': 'history-h' },
          h('h3', { id: 'history-h' }, 'State history'),
          history(job))),
      h('section', { 'aria-labelledby': 'podsets-h' }, h('h3', { id: 'podsets-h' }, 'Pod sets'), podSets(job)));
  },
};
