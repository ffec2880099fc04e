// ResourceFlavors: the nodes each matches, their GPUs in use, and the quota each ClusterQueue has of it.
import { get, seg } from './api.js';
import { h, link, table, formatNumber, quantity, resourceName } from './dom.js';
import { domainTable } from './overview.js';

export const flavorsView = {
  title: () => 'Flavors',
  load: () => get('/flavors'),
  summary: (d) => d.items.map((f) => `${f.name} ${f.gpusUsed} of ${f.gpus} GPUs used`).join('; '),
  render(d) {
    return h('div', null,
      h('h2', null, 'ResourceFlavors'),
      h('p.lead', null, 'Each flavor is a kind of node (by its labels); quota is given per flavor.'),
      d.items.length ? table(null, ['Flavor', 'Node labels', 'Nodes', 'GPUs used', 'GPUs free', 'Jobs on it'], d.items.map((f) => [
        link('/flavors/' + seg(f.name), f.name, { 'data-key': 'fl:' + f.name, 'data-flavor': f.name }),
        Object.entries(f.nodeLabels).map(([k, v]) => `${k}=${v}`).join(', ') || 'any node',
        formatNumber(f.nodes) + (f.unschedulableNodes ? ` (${f.unschedulableNodes} unschedulable)` : ''),
        `${formatNumber(f.gpusUsed)} of ${formatNumber(f.gpus)}`, formatNumber(f.gpusFree), formatNumber(f.jobs),
      ]), { 'data-flavors': '' }) : h('p.empty', null, 'No ResourceFlavor is defined.'));
  },
};

export const flavorView = {
  title: (p) => 'Flavor ' + p.flavor,
  load: (p) => get('/flavors/' + seg(p.flavor)),
  summary: (f) => `${f.name}: ${f.gpusUsed} of ${f.gpus} GPUs used`,
  render(f) {
    return h('div', { 'data-flavor': f.name },
      h('p.crumbs', null, link('/flavors', 'Flavors'), ' › ResourceFlavor'),
      h('h2', null, 'ResourceFlavor ', f.name),
      h('ul.facts', null,
        h('li', null, 'node labels ', h('strong', null, Object.entries(f.nodeLabels).map(([k, v]) => `${k}=${v}`).join(', ') || 'none (any node)')),
        h('li', null, 'nodes ', h('strong', null, formatNumber(f.nodes))),
        h('li', null, 'GPUs used ', h('strong', { 'data-field': 'gpus-used' }, `${formatNumber(f.gpusUsed)} of ${formatNumber(f.gpus)}`)),
        h('li', null, 'jobs on it ', h('strong', null, formatNumber(f.jobIds.length)))),
      h('h3', null, 'Quota of this flavor by ClusterQueue'),
      f.clusterQueues.length ? table(null, ['ClusterQueue', 'Cohort', 'Resource', 'Nominal', 'Used', 'Borrowed'], f.clusterQueues.map((r) => [
        link('/queues/' + seg(r.clusterQueue), r.clusterQueue, { 'data-key': `flq:${r.clusterQueue}:${r.resource}` }), r.cohort || '–',
        resourceName(r.resource), quantity(r.resource, r.nominal), quantity(r.resource, r.used), quantity(r.resource, r.borrowed),
      ]), { 'data-quota': '' }) : h('p.empty', null, 'No ClusterQueue has quota of this flavor.'),
      h('h3', null, 'GPUs by NVLink domain'),
      domainTable(f.byNvlinkDomain),
      h('h3', null, 'Nodes'),
      table(null, ['Node', 'GPU model', 'GPUs used', 'Schedulable'], f.nodeList.map((n) => [
        link('/nodes/' + seg(n.name), n.name, { 'data-key': 'fln:' + n.name }), n.gpuModel || '–',
        `${formatNumber(n.gpusUsed)} of ${formatNumber(n.gpus)}`, n.unschedulable ? 'no (cordoned)' : 'yes'])));
  },
};
