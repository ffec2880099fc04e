// The cluster at a glance: jobs by state, GPUs used and free in all, by flavor and by NVLink domain.
import { get, seg } from './api.js';
import { h, link, table, formatNumber, stateLabel, withQuery } from './dom.js';

/** A table of NVLink domains grouped by size and kind: how many, GPUs used and free, how many wholly free. */
export function domainTable(rows) {
  if (!rows.length) return h('p.empty', null, 'No GPUs.');
  const kind = (k) => (k === 'NONE' ? 'no NVLink (single GPUs)' : k === 'NVSWITCH' ? 'NVSwitch' : 'NVLink');
  return table(null, ['Domain', 'Domains', 'GPUs used', 'GPUs free', 'Wholly free domains'], rows.map((d) => [
    `${d.gpusPerDomain} GPUs, ${kind(d.kind)}`, formatNumber(d.domains), `${formatNumber(d.gpusUsed)} of ${formatNumber(d.gpus)}`,
    formatNumber(d.gpusFree), h('strong', { 'data-field': 'whole-free' }, formatNumber(d.wholeDomainsFree)),
  ]), { 'data-domains': '' });
}

function gpuBar(used, total, label) {
  const pct = total ? (100 * used / total).toFixed(2) + '%' : '0%';
  return h('div.usage', null,
    h('div.label', null, h('span', null, label), h('span.words', { 'data-field': 'usage' }, `${formatNumber(used)} of ${formatNumber(total)} used`)),
    h('div.bar', { 'aria-hidden': 'true' }, h('span.fill', { style: { width: pct } })));
}

export const overviewView = {
  title: () => 'Overview',
  load: () => get('/overview'),
  summary: (o) => `${o.jobs.PENDING} pending, ${o.jobs.RUNNING} running, ${o.gpus.used} of ${o.gpus.total} GPUs used`,
  render(o) {
    const states = Object.entries(o.jobs);
    return h('div', null,
      h('h2', null, 'Overview'),
      h('p.lead', null, `${formatNumber(o.jobsTotal)} jobs on ${formatNumber(o.nodes)} nodes.`),
      h('section', { 'aria-labelledby': 'ov-jobs' },
        h('h3', { id: 'ov-jobs' }, 'Jobs by state'),
        h('ul.tiles', null, states.map(([s, n]) => h('li.tile', { 'data-state': s },
          link(withQuery('/jobs', { state: s }), [h('strong', { 'data-field': 'count' }, formatNumber(n)), ' ', stateLabel(s)],
            { 'data-key': 'ov:' + s }))))),
      h('section', { 'aria-labelledby': 'ov-gpus' },
        h('h3', { id: 'ov-gpus' }, 'GPUs'),
        h('div.card', null, gpuBar(o.gpus.used, o.gpus.total, 'All GPUs'),
          o.byFlavor.map((f) => gpuBar(f.gpusUsed, f.gpus, 'Flavor ' + f.name))),
        table('By flavor', ['Flavor', 'Nodes', 'GPUs used', 'GPUs free', 'Jobs on it'], o.byFlavor.map((f) => [
          link('/flavors/' + seg(f.name), f.name, { 'data-key': 'ovf:' + f.name }), formatNumber(f.nodes),
          `${formatNumber(f.gpusUsed)} of ${formatNumber(f.gpus)}`, h('span', { 'data-flavor-free': f.name }, formatNumber(f.gpusFree)),
          formatNumber(f.jobs)]), { 'data-by-flavor': '' }),
        h('h3', null, 'By NVLink domain'),
        h('p.lead', null, 'A gang that needs a whole NVLink domain can start only on a wholly free one.'),
        domainTable(o.byNvlinkDomain)));
  },
};
