// Nodes and their GPU maps: which job holds which GPU, GPUs grouped by NVLink / NVSwitch domain.
import { get, seg } from './api.js';
import { h, link, table, formatNumber, jobColour, stateLabel } from './dom.js';

/** The GPU boxes of a set of indexes; `highlight` is a job whose GPUs get an outline. */
function gpuList(node, indexes, highlight, mini) {
  const byIndex = new Map((node.gpus || []).map((g) => [g.index, g]));
  return h('ul.gpus', null, indexes.map((i) => {
    const gpu = byIndex.get(i) || { index: i };
    const holder = gpu.job;
    const attrs = {
      'data-gpu': String(i),
      'data-holder': holder || '',
      style: holder ? { background: jobColour(holder) } : null,
    };
    if (mini) {
      return h('li.gpu' + (holder ? '' : '.free'), { ...attrs, title: `GPU ${i}: ${holder || 'free'}` },
        h('span.visually-hidden', null, `GPU ${i} ${holder ? 'held by ' + holder : 'free'}`));
    }
    return h('li.gpu' + (holder ? '' : '.free') + (holder && holder === highlight ? '.mine' : ''), attrs,
      h('span.idx', null, 'GPU ', String(i)),
      h('span.holder', null, holder
        ? link('/jobs/' + seg(holder), holder, { 'data-key': 'gpu:' + i, 'aria-label': `GPU ${i} held by job ${holder}` })
        : 'free'));
  }));
}

/** Groups the GPUs by NVLink domain; GPUs outside every domain form their own group. */
function domains(node) {
  const all = (node.gpus || []).map((g) => g.index);
  const groups = (node.nvlinkDomains || []).map((d) => ({ kind: d.kind, gpus: d.gpus }));
  const covered = new Set(groups.flatMap((g) => g.gpus));
  const rest = all.filter((i) => !covered.has(i));
  if (rest.length) groups.push({ kind: null, gpus: rest });
  return groups;
}

function domainLabel(group, n) {
  if (!group.kind) return 'No NVLink (PCIe)';
  const kind = group.kind === 'NVSWITCH' ? 'NVSwitch' : 'NVLink';
  return `${kind} domain ${n + 1} · GPUs ${group.gpus[0]}–${group.gpus[group.gpus.length - 1]}`;
}

function gpuMap(node, highlight, mini) {
  return h('div.domains' + (mini ? '.mini' : ''), null, domains(node).map((group, n) =>
    h('fieldset.domain', { class: group.kind ? group.kind.toLowerCase() : 'pcie', 'data-domain': String(n) },
      h('legend', null, domainLabel(group, n)),
      gpuList(node, group.gpus, highlight, mini))));
}

function holders(node) {
  const jobs = new Map();
  for (const g of node.gpus || []) {
    if (g.job) jobs.set(g.job, [...(jobs.get(g.job) || []), g.index]);
  }
  return jobs;
}

export const nodesView = {
  title: () => 'Nodes',
  load: () => get('/nodes'),
  summary: (data) => {
    const nodes = data.items || [];
    const used = nodes.reduce((s, n) => s + (n.gpus || []).filter((g) => g.job).length, 0);
    const total = nodes.reduce((s, n) => s + (n.gpus || []).length, 0);
    return `${used} of ${total} GPUs in use`;
  },
  render(data) {
    const nodes = data.items || [];
    return h('div', null,
      h('h2', null, 'Nodes'),
      h('p.lead', null, `${nodes.length} nodes, ${nodesView.summary(data)}. `
        + 'Each box is a GPU, coloured by the job holding it; framed groups are NVLink / NVSwitch domains.'),
      h('div.nodes', null, nodes.map((n) => {
        const jobs = holders(n);
        return h('article.card', { 'data-node': n.name, 'aria-labelledby': 'node-' + n.name },
          h('h3', { id: 'node-' + n.name }, link('/nodes/' + seg(n.name), n.name, { 'data-key': 'node:' + n.name })),
          h('ul.facts', null,
            n.cluster ? h('li', null, 'cluster ', h('strong', null, n.cluster)) : null,
            h('li', null, h('strong', null, `${[...jobs.values()].flat().length}/${(n.gpus || []).length}`), ' GPUs used'),
            n.gpuModel ? h('li', null, n.gpuModel) : null,
            n.cordoned ? h('li', null, h('strong', null, 'cordoned')) : null),
          gpuMap(n, null, true),
          jobs.size ? h('p', null, 'Jobs: ', [...jobs.keys()].map((j, i) => [i ? ', ' : '',
            link('/jobs/' + seg(j), j, { 'data-key': 'node-job:' + n.name + ':' + j })])) : null);
      })));
  },
};

export const nodeView = {
  title: (p) => 'Node ' + p.node,
  load: (p) => get('/nodes/' + seg(p.node)),
  summary: (n) => `${n.name}: ${[...holders(n).values()].flat().length} of ${(n.gpus || []).length} GPUs in use`,
  render(n, p, query) {
    const highlight = query.get('job');
    const jobs = holders(n);
    return h('div', { 'data-node': n.name },
      h('p.crumbs', null, link('/nodes', 'Nodes'), ' › node'),
      h('h2', null, 'Node ', n.name),
      h('ul.facts', null,
        n.cluster ? h('li', null, 'cluster ', h('strong', null, n.cluster)) : null,
        n.gpuModel ? h('li', null, 'GPU ', h('strong', null, n.gpuModel)) : null,
        n.shape ? h('li', null, 'wiring ', h('strong', null, n.shape)) : null,
        n.cordoned ? h('li', null, h('strong', null, 'cordoned')) : null),
      highlight && jobs.has(highlight)
        ? h('p', { 'data-field': 'highlight' }, 'Job ', link('/jobs/' + seg(highlight), highlight, { 'data-key': 'hl' }),
          ` holds GPUs ${jobs.get(highlight).join(', ')} on this node (outlined).`)
        : null,
      h('h3', null, 'GPU map'),
      gpuMap(n, highlight, false),
      h('h3', null, 'Who holds which GPU'),
      jobs.size ? table(null, ['Job', 'GPU ids'], [...jobs.entries()].map(([j, gpus]) => [
        link('/jobs/' + seg(j), j, { 'data-key': 'holder:' + j }), h('span', { 'data-field': 'gpus', 'data-job': j }, gpus.join(', ')),
      ]), { 'data-holders': '' }) : h('p.empty', null, 'No job holds a GPU on this node.'),
      resources(n));
  },
};

function resources(n) {
  const cap = n.capacity || {};
  if (!Object.keys(cap).length) return null;
  const alloc = n.allocated || {};
  return h('section', { 'aria-labelledby': 'res-h' }, h('h3', { id: 'res-h' }, 'Resources'),
    table(null, ['Resource', 'Allocated', 'Capacity'], Object.keys(cap).map((r) => [
      stateLabel(r), formatNumber(alloc[r] || 0), formatNumber(cap[r]),
    ])));
}
