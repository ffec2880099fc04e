// One job: its state and why it waits, where each member runs (node and GPU ids), and its state history.
import { get, seg } from './api.js';
import { h, link, table, formatNumber, duration, stateBadge, stateLabel, quantity } from './dom.js';

function reasonBox(job) {
  if (!job.reason) return null;
  return h('section.card', { 'aria-labelledby': 'why', 'data-reason': job.reason.code },
    h('h3', { id: 'why' }, 'Why it is pending'),
    h('p', null, h('span.code', null, job.reason.code)),
    h('p.reason', { 'data-field': 'reason' }, job.reason.message),
    job.position ? h('p', null, 'Position ', h('strong', { 'data-field': 'position' }, formatNumber(job.position)),
      ' in ', link('/queues/' + seg(job.clusterQueue), job.clusterQueue, { 'data-key': 'job-cq' })) : null,
    job.reason.details && Object.keys(job.reason.details).length
      ? table(null, ['Figure', 'Value'], Object.entries(job.reason.details).map(([k, v]) => [k, formatNumber(v)]))
      : null);
}

function placement(job) {
  const members = job.placement || [];
  if (!members.length) {
    return h('p.empty', null, job.state === 'PENDING' ? 'Not placed: the job is waiting.' : 'No placement.');
  }
  return table(null, ['Pod set', 'Member', 'Node', 'GPU ids'], members.map((m) => [
    m.podSet, String(m.index),
    link('/nodes/' + seg(m.node) + '?job=' + seg(job.id), m.node, { 'data-key': 'place:' + m.podSet + ':' + m.index, 'data-node': m.node }),
    h('span', { 'data-field': 'gpus' }, (m.gpus || []).length ? m.gpus.join(', ') : 'none'),
  ]), { 'data-placement': '' });
}

function history(job) {
  const entries = job.history || [];
  if (!entries.length) return h('p.empty', null, 'No history recorded.');
  return table(null, ['Time', 'State', 'Why'], entries.map((e) => [
    duration(e.timeSeconds), stateBadge(e.state), e.message || '',
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
    return h('div', { 'data-job': job.id },
      h('p.crumbs', null, link('/queues', 'Queues'), ' › ',
        job.clusterQueue ? link('/queues/' + seg(job.clusterQueue), job.clusterQueue, { 'data-key': 'crumb-cq' }) : '', ' › job'),
      h('h2', null, 'Job ', job.id, ' ', stateBadge(job.state)),
      h('ul.facts', null,
        h('li', null, 'state ', h('strong', { 'data-field': 'state' }, stateLabel(job.state))),
        job.localQueue ? h('li', null, 'LocalQueue ', h('strong', null, `${job.namespace}/${job.localQueue}`)) : null,
        job.clusterQueue ? h('li', null, 'ClusterQueue ', h('strong', null, job.clusterQueue)) : null,
        job.jobSet ? h('li', null, 'job set ', h('strong', null, job.jobSet)) : null,
        h('li', null, 'priority ', h('strong', null, formatNumber(job.priority || 0))),
        job.preemptions ? h('li', null, 'preempted ', h('strong', null, formatNumber(job.preemptions)), ' times') : null,
        job.flavor ? h('li', null, 'flavor ', h('strong', null, job.flavor)) : null),
      reasonBox(job),
      h('div.two-col', null,
        h('section', { 'aria-labelledby': 'placement-h' },
          h('h3', { id: 'placement-h' }, 'Placement'),
          job.locality ? h('p', null, 'Slowest link crossed: ', h('strong', null, stateLabel(job.locality))) : null,
          placement(job)),
        h('section', { 'aria-labelledby': 'history-h' },
          h('h3', { id: 'history-h' }, 'State history'),
          history(job))),
      h('section', { 'aria-labelledby': 'podsets-h' }, h('h3', { id: 'podsets-h' }, 'Pod sets'), podSets(job)));
  },
};
