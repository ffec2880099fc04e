// Nodes and their GPU maps: which job holds which GPU, GPUs grouped by NVLink / NVSwitch domain.
import { get, seg } from './api.js';
import { h, link, table, formatNumber, jobColour, jobColours, quantity, stateBadge } from './dom.js';

// The colours of the page being rendered: every job on it gets its own (see jobColours).
let colourOf = jobColour;

/** The GPU boxes of a set of indexes; `highlight` is a job whose GPUs get an outline. */
function gpuList(node, indexes, highlight) {
  const byIndex = new Map((node.gpus || []).map((g) => [g.index, g]));
  return h('ul.gpus', null, indexes.map((i) => {
    const gpu = byIndex.get(i) || { index: i };
    const holder = gpu.job;
    return h('li.gpu' + (holder ? '' : '.free') + (holder && holder === highlight ? '.mine' : ''),
      { 'data-gpu': String(i), 'data-holder': holder || '', style: holder ? { background: colourOf(holder) } : null },
      h('span.idx', null, 'GPU ', String(i)),
      h('span.holder', null, holder
        ? link('/jobs/' + seg(holder), holder, { 'data-key': 'gpu:' + i, 'aria-label': `GPU ${i}: job ${holder}` })
        : 'free'),
      holder && gpu.podSet ? h('span.member', null, `${gpu.podSet}[${gpu.member}]`) : null);
  }));
}

/** The node's NVLink domains (the API's connected components), each with the fastest link kind inside it. */
function domains(node) {
  const kinds = new Map(); // domain index → 'NVSWITCH' | 'NVLINK'
  const domainOf = new Map((node.gpus || []).map((g) => [g.index, g.domain]));
  for (const l of node.links || []) {
    if (l.kind !== 'NVSWITCH' && l.kind !== 'NVLINK') continue;
    const d = domainOf.get(l.a);
    if (kinds.get(d) !== 'NVSWITCH') kinds.set(d, l.kind);
  }
  return (node.nvlinkDomains || []).map((gpus, i) => ({ kind: kinds.get(i) || null, gpus }));
}

function domainLabel(group, n) {
  const g = group.gpus;
  const contiguous = g.every((x, i) => i === 0 || x === g[i - 1] + 1);
  const range = g.length === 1 ? `GPU ${g[0]}` : `GPUs ${contiguous ? g[0] + '–' + g[g.length - 1] : g.join(', ')}`;
  if (!group.kind) return `No NVLink · ${range}`;
  return `${group.kind === 'NVSWITCH' ? 'NVSwitch' : 'NVLink'} domain ${n + 1} · ${range}`;
}

function gpuMap(node, highlight, mini) {
  const groups = domains(node);
  return h('div.domains' + (mini ? '.mini' : ''), { role: 'group', 'aria-label': `GPU map of ${node.name}, by NVLink domain` },
    groups.map((group, n) => h('fieldset.domain', { class: group.kind ? group.kind.toLowerCase() : 'pcie', 'data-domain': String(n) },
      h('legend', null, domainLabel(group, n)),
      mini ? miniList(node, group.gpus) : gpuList(node, group.gpus, highlight))));
}

/** The overview's small GPU boxes: the index and the holder's colour; the words are for screen readers and hover. */
function miniList(node, indexes) {
  const byIndex = new Map((node.gpus || []).map((g) => [g.index, g]));
  return h('ul.gpus', null, indexes.map((i) => {
    const holder = (byIndex.get(i) || {}).job;
    const words = `GPU ${i}: ${holder ? 'job ' + holder : 'free'}`;
    return h('li.gpu' + (holder ? '' : '.free'), { 'data-gpu': String(i), 'data-holder': holder || '', title: words,
      style: holder ? { background: colourOf(holder) } : null }, h('span', { 'aria-hidden': 'true' }, String(i)),
    h('span.visually-hidden', null, words));
  }));
}

function holders(node) {
  const jobs = new Map();
  for (const g of node.gpus || []) {
    if (g.job) jobs.set(g.job, [...(jobs.get(g.job) || []), g.index]);
  }
  return jobs;
}

/** A bar of the GPUs used on a node (the list view; the node page has the full map). */
function gpuBar(n) {
  const total = n.gpus || 0;
  return h('div.usage', null,
    h('div.label', null, h('span.nowrap', null, `${n.gpuModel || 'GPU'} · ${n.gpuShape || ''}`),
      h('span.words', { 'data-field': 'gpus-used' }, `${n.gpusUsed} of ${total} GPUs used`)),
    h('div.bar', { 'aria-hidden': 'true' }, h('span.fill', { style: { width: (100 * n.gpusUsed / Math.max(1, total)).toFixed(2) + '%' } })));
}

const PAGE = 60;
const MAPS_UP_TO = 24;

export const nodesView = {
  title: () => 'Nodes',
  async load(p, query) {
    const page = await get('/nodes', { offset: Math.max(0, parseInt(query.get('offset') || '0', 10) || 0), limit: PAGE });
    // A small cluster gets every node's GPU map on this page; a large one, a bar per node (one request per page).
    if (page.items.length <= MAPS_UP_TO) {
      page.details = await Promise.all(page.items.map((n) => get('/nodes/' + seg(n.name))));
    }
    return page;
  },
  summary: (page) => {
    const used = page.items.reduce((s, n) => s + n.gpusUsed, 0);
    const total = page.items.reduce((s, n) => s + n.gpus, 0);
    return `${used} of ${total} GPUs in use`;
  },
  render(page) {
    const nodes = page.items;
    colourOf = jobColours(nodes.flatMap((n) => n.jobs || []));
    return h('div', null,
      h('h2', null, 'Nodes'),
      h('p.lead', null, `${formatNumber(page.total)} nodes` + (page.total > nodes.length
        ? ` (${page.offset + 1}–${page.offset + nodes.length} shown)` : '')
        + `; ${nodesView.summary(page)} on these. Open a node for its GPU map: which job holds which GPU, by NVLink domain.`),
      page.total > PAGE ? nodePager(page) : null,
      h('div.nodes', null, nodes.map((n) => h('article.card', { 'data-node': n.name, 'aria-labelledby': 'node-' + n.name },
        h('h3', { id: 'node-' + n.name }, link('/nodes/' + seg(n.name), n.name, { 'data-key': 'node:' + n.name }),
          n.unschedulable ? [' ', h('span.badge.state-failed', null, 'cordoned')] : null),
        n.cluster ? h('p.lead', null, 'cluster ', n.cluster) : null,
        gpuBar(n),
        page.details ? gpuMap(page.details.find((d) => d.name === n.name), null, true) : null,
        n.jobs.length ? h('p', null, 'Jobs: ', n.jobs.map((j, i) => [i ? ', ' : '',
          h('span.swatch', { 'aria-hidden': 'true', style: { background: colourOf(j) } }),
          link('/nodes/' + seg(n.name) + '?job=' + seg(j), j, { 'data-key': 'node-job:' + n.name + ':' + j })])) : h('p.empty', null, 'idle')))));
  },
};

function nodePager(page) {
  const go = (offset) => () => { window.location.hash = `#/nodes?offset=${offset}`; };
  return h('nav.pager', { 'aria-label': 'Pages of nodes' },
    h('button', { type: 'button', onclick: go(Math.max(0, page.offset - PAGE)), disabled: page.offset === 0 }, '← Previous'),
    h('button', { type: 'button', onclick: go(page.offset + PAGE), disabled: page.offset + PAGE >= page.total }, 'Next →'));
}

export const nodeView = {
  title: (p) => 'Node ' + p.node,
  load: (p) => get('/nodes/' + seg(p.node)),
  summary: (n) => `${n.name}: ${[...holders(n).values()].flat().length} of ${(n.gpus || []).length} GPUs in use`,
  render(n, p, query) {
    const highlight = query.get('job');
    const jobs = holders(n);
    colourOf = jobColours([...jobs.keys()]);
    return h('div', { 'data-node': n.name },
      h('p.crumbs', null, link('/nodes', 'Nodes'), ' › node'),
      h('h2', null, 'Node ', n.name),
      h('ul.facts', null,
        n.cluster ? h('li', null, 'cluster ', h('strong', null, n.cluster)) : null,
        n.gpuModel ? h('li', null, 'GPU ', h('strong', null, n.gpuModel)) : null,
        n.gpuShape ? h('li', null, 'wiring ', h('strong.nowrap', null, n.gpuShape)) : null,
        n.unschedulable ? h('li', null, h('strong', null, 'cordoned')) : null),
      highlight ? h('p', { 'data-field': 'highlight' }, 'Job ', link('/jobs/' + seg(highlight), highlight, { 'data-key': 'hl' }),
        jobs.has(highlight) ? ` holds GPUs ${jobs.get(highlight).join(', ')} on this node (outlined below).`
          : ' holds no GPU on this node now.') : null,
      h('h3', null, 'GPU map'),
      h('p.legend', null, 'Framed groups are NVLink / NVSwitch domains; each box is a GPU with the job holding it.'),
      gpuMap(n, highlight),
      h('h3', null, 'Who holds which GPU'),
      (n.jobs || []).length ? table(null, ['Job', 'State', 'Members and GPU ids'], n.jobs.map((j) => [
        link('/jobs/' + seg(j.id), j.id, { 'data-key': 'holder:' + j.id }),
        stateBadge(j.state),
        h('span', { 'data-field': 'gpus', 'data-job': j.id }, j.members.map((m) => `${m.podSet}[${m.index}]: ${m.gpus.join(', ') || 'no GPU'}`).join('; ')),
      ]), { 'data-holders': '' }) : h('p.empty', null, 'No job runs on this node.'),
      resources(n));
  },
};

function resources(n) {
  const cap = n.capacity || {};
  if (!Object.keys(cap).length) return null;
  const alloc = n.allocated || {};
  return h('section', { 'aria-labelledby': 'res-h' }, h('h3', { id: 'res-h' }, 'Resources'),
    table(null, ['Resource', 'Allocated', 'Capacity'], Object.keys(cap).map((r) => [
      r, quantity(r, alloc[r] || 0), quantity(r, cap[r]),
    ])));
}
