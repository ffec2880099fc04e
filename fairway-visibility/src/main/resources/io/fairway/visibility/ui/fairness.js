// Why the scheduler thinks the allocation is fair: per ClusterQueue and cohort the actual share against the nominal
// and weighted shares, the dominant resource share fair sharing ranks by, decayed usage; under Themis each app's and
// job's finish-time fairness rho and its bid.
import { get, seg } from './api.js';
import { h, link, table, formatNumber, percent, resourceName, duration, quantity } from './dom.js';

/** A bar of the actual share with marks at the nominal and the weighted share; the same figures in words beside it. */
function shareBar(q) {
  const pct = (x) => (100 * Math.min(1, x || 0)).toFixed(2) + '%';
  return h('div.share', null,
    h('div.bar', { 'aria-hidden': 'true' },
      h('span.fill', { style: { width: pct(q.actualShare) } }),
      h('span.nominal', { style: { left: pct(q.nominalShare) } }),
      q.active ? h('span.weighted', { style: { left: pct(q.weightedShare) } }) : null),
    h('span.words', { 'data-field': 'shares' },
      `${percent(q.actualShare)} used; nominal ${percent(q.nominalShare)}`
      + (q.active ? `; by weight ${percent(q.weightedShare)}` : '; no work, so no weighted share')));
}

function queueRows(queues) {
  return table(null, ['ClusterQueue', 'Weight', 'Dominant resource', 'Actual share against nominal and weighted share',
    'Dominant resource share', 'Decayed usage', 'Pending', 'Holding'], queues.map((q) => [
    link('/queues/' + seg(q.name), q.name, { 'data-key': 'fq:' + q.name, 'data-queue': q.name }),
    formatNumber(q.weight), q.dominantResource ? resourceName(q.dominantResource) : '–', shareBar(q),
    h('span', { 'data-field': 'drs', 'data-queue': q.name }, formatNumber(q.dominantResourceShare)),
    formatNumber(q.decayedUsage), formatNumber(q.pending), formatNumber(q.holding),
  ]), { class: 'fairness', 'data-fairness': '' });
}

function apps(list, at) {
  return h('section', { 'aria-labelledby': 'apps-h' },
    h('h3', { id: 'apps-h' }, 'Apps and jobs: finish-time fairness (ρ) and bids'),
    h('p.lead', null, 'ρ is the time an app (or job) needs to finish with its current share over the time it would need '
      + 'alone on a fair share of the cluster: 1 is fair, larger is worse off. The worst-off apps bid for GPUs each round'
      + (at !== null && at !== undefined ? ` (the last round the policy planned).` : '.')),
    list.length ? table(null, ['App (job set)', 'ρ', 'Finish with its share', 'Alone on a fair share', 'Bids', 'Jobs and their ρ'],
      list.map((a) => [
        link('/jobsets/' + seg(a.name), a.name, { 'data-key': 'app:' + a.name, 'data-app': a.name }),
        h('strong', { 'data-field': 'rho' }, a.rho === null ? 'unbounded' : formatNumber(a.rho)),
        a.sharedSeconds === null ? '–' : duration(a.sharedSeconds), a.idealSeconds === null ? '–' : duration(a.idealSeconds),
        h('span', { 'data-field': 'bid' }, a.bidding
          ? (a.bidMinGpus === a.bidMaxGpus ? `${a.bidMinGpus} GPUs` : `${a.bidMinGpus}–${a.bidMaxGpus} GPUs`) : 'not bidding'),
        h('details', null, h('summary', null, `${a.jobs.length} job${a.jobs.length === 1 ? '' : 's'}`),
          h('ul.plain', null, a.jobs.map((j) => h('li', null, link('/jobs/' + seg(j.id), j.id, { 'data-key': 'aj:' + j.id }),
            ` ρ ${j.rho === null ? 'unbounded' : formatNumber(j.rho)}, ${j.gpus} GPUs, ${j.holding ? 'running' : 'waiting'}`)))),
      ]), { 'data-apps': '' }) : h('p.empty', null, 'No app has live GPU jobs.'));
}

export const fairnessView = {
  title: () => 'Fairness',
  load: () => get('/fairness'),
  summary: (d) => d.clusterQueues.map((q) => `${q.name} ${percent(q.actualShare)} used`).join('; '),
  render(d) {
    const byCohort = new Map(d.cohorts.map((c) => [c.name, []]));
    const alone = [];
    for (const q of d.clusterQueues) {
      if (q.cohort && byCohort.has(q.cohort)) byCohort.get(q.cohort).push(q);
      else alone.push(q);
    }
    return h('div', null,
      h('h2', null, 'Fairness'),
      h('p.lead', null, `Policy ${d.policy}. For each ClusterQueue: the share of its cohort's quota it uses on its dominant `
        + 'resource (the bar), against the share its nominal quota gives it (black mark) and the share its fair-sharing weight '
        + 'gives it among the queues with work (blue mark). Fair sharing lends idle quota to the queue with the lowest dominant '
        + 'resource share (what it borrows over what its cohort could lend, divided by its weight) and reclaims from the highest; '
        + 'decayed usage is fair share over time.'),
      h('p.legend', { 'aria-hidden': 'true' },
        h('span', null, h('span.swatch.used'), 'actual share'),
        h('span', null, h('span.swatch.nominal'), 'nominal share'),
        h('span', null, h('span.swatch.weighted'), 'weighted share')),
      d.cohorts.map((c) => h('section.cohort', { 'aria-labelledby': 'fc-' + c.name, 'data-cohort': c.name },
        h('h3', { id: 'fc-' + c.name }, 'Cohort ', c.name),
        h('ul.facts', null,
          c.resources.map((r) => h('li', null, resourceName(r.resource), ' ', h('strong', null, `${quantity(r.resource, r.used)} of ${quantity(r.resource, r.nominal)}`), ' used')),
          h('li', null, 'dominant resource shares ', h('strong', { 'data-field': 'drs-range' },
            `${formatNumber(c.minDominantResourceShare)} to ${formatNumber(c.maxDominantResourceShare)}`))),
        queueRows(byCohort.get(c.name)))),
      alone.length ? h('section', { 'aria-labelledby': 'fc-none' }, h('h3', { id: 'fc-none' }, 'Without a cohort'), queueRows(alone)) : null,
      d.apps ? apps(d.apps, d.appsAtMillis) : null);
  },
};
