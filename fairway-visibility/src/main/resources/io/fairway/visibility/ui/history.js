// The scheduler over time (the API's bounded history): GPUs in use and pending jobs per ClusterQueue, admissions and
// preemptions. Each chart is an SVG image with a text summary, and its figures are in a table under it.
import { get } from './api.js';
import { h, svg, table, formatNumber, when, duration } from './dom.js';

const W = 640;
const H = 180;
const PAD = { left: 44, right: 10, top: 10, bottom: 24 };
// Dark, distinct line colours (contrast at least 3:1 on white).
const LINES = ['#1f5fbf', '#a04d00', '#1a6b2f', '#7a1fa2', '#a4161a', '#00647a', '#5c5c00', '#b0006a'];

function scale(values, size, lo, hi) {
  return (v) => (hi === lo ? 0 : (v - lo) / (hi - lo)) * size;
}

/** A line chart of series over times; title names it, unit the y axis. */
function lineChart(id, title, times, series, unit) {
  const t0 = times[0];
  const t1 = times[times.length - 1];
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const x = scale(times, W - PAD.left - PAD.right, t0, t1);
  const y = scale(null, H - PAD.top - PAD.bottom, 0, max);
  const px = (t) => PAD.left + x(t);
  const py = (v) => H - PAD.bottom - y(v);
  const summary = series.map((s) => `${s.name} ${formatNumber(s.values[s.values.length - 1])} now, at most ${formatNumber(Math.max(...s.values))}`).join('; ');
  return h('figure.chart', { 'data-chart': id },
    h('figcaption', null, title),
    svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': `${title}: ${summary}` },
      svg('line', { x1: PAD.left, y1: py(0), x2: W - PAD.right, y2: py(0), stroke: '#4a5361' }),
      svg('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: py(0), stroke: '#4a5361' }),
      svg('text', { x: PAD.left - 4, y: py(max) + 4, 'text-anchor': 'end', 'font-size': 11 }, formatNumber(max)),
      svg('text', { x: PAD.left - 4, y: py(0), 'text-anchor': 'end', 'font-size': 11 }, '0'),
      svg('text', { x: PAD.left, y: H - 6, 'font-size': 11 }, when(t0)),
      svg('text', { x: W - PAD.right, y: H - 6, 'text-anchor': 'end', 'font-size': 11 }, when(t1)),
      series.map((s, i) => svg('polyline', {
        points: s.values.map((v, k) => `${px(times[k]).toFixed(1)},${py(v).toFixed(1)}`).join(' '),
        fill: 'none', stroke: LINES[i % LINES.length], 'stroke-width': 2, 'stroke-dasharray': i >= LINES.length ? '4 3' : null,
        'data-series': s.name,
      }))),
    h('p.legend', null, series.map((s, i) => h('span', null,
      h('span.swatch.line', { style: { borderColor: LINES[i % LINES.length] } }), s.name, ` (${unit})`))));
}

/** Bars of counts per interval (admissions up, preemptions down). */
function countChart(times, admitted, preempted) {
  const max = Math.max(1, ...admitted, ...preempted);
  const mid = (H - PAD.bottom + PAD.top) / 2;
  const half = mid - PAD.top;
  const bw = Math.max(1, (W - PAD.left - PAD.right) / Math.max(1, times.length) - 1);
  const total = (a) => a.reduce((s, v) => s + v, 0);
  const label = `Admissions (up) and preemptions (down) per interval: ${formatNumber(total(admitted))} admissions and `
    + `${formatNumber(total(preempted))} preemptions in all`;
  return h('figure.chart', { 'data-chart': 'churn' },
    h('figcaption', null, 'Admissions and preemptions'),
    svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': label },
      svg('line', { x1: PAD.left, y1: mid, x2: W - PAD.right, y2: mid, stroke: '#4a5361' }),
      svg('text', { x: PAD.left - 4, y: PAD.top + 8, 'text-anchor': 'end', 'font-size': 11 }, formatNumber(max)),
      svg('text', { x: PAD.left, y: H - 6, 'font-size': 11 }, when(times[0])),
      svg('text', { x: W - PAD.right, y: H - 6, 'text-anchor': 'end', 'font-size': 11 }, when(times[times.length - 1])),
      times.map((t, k) => [
        admitted[k] ? svg('rect', { x: PAD.left + k * (bw + 1), y: mid - half * admitted[k] / max, width: bw, height: half * admitted[k] / max, fill: LINES[0] }) : null,
        preempted[k] ? svg('rect', { x: PAD.left + k * (bw + 1), y: mid, width: bw, height: half * preempted[k] / max, fill: LINES[1] }) : null,
      ])),
    h('p.legend', null,
      h('span', null, h('span.swatch', { style: { background: LINES[0] } }), 'admissions'),
      h('span', null, h('span.swatch', { style: { background: LINES[1] } }), 'preemptions')));
}

export const historyView = {
  title: () => 'History',
  load: () => get('/history'),
  summary: (d) => `${d.timeMillis.length} points`,
  render(d) {
    const times = d.timeMillis;
    const queues = d.clusterQueues;
    const head = h('div', null,
      h('h2', null, 'History'),
      h('p.lead', null, `The server keeps at most ${formatNumber(d.capacity)} points since it started, at least `
        + `${duration(d.initialSpacingMillis / 1000)} apart on the scheduler's clock; when full it keeps every other point and `
        + `doubles the spacing (now ${duration(d.spacingMillis / 1000)}), so the charts always reach back to the start.`));
    if (times.length < 2) {
      head.append(h('p.empty', null, 'Not enough history yet: points come as the scheduler\'s clock moves.'));
      return head;
    }
    head.append(
      lineChart('gpus', 'GPUs in use per ClusterQueue', times, queues.map((q) => ({ name: q.name, values: q.gpusUsed })), 'GPUs'),
      lineChart('pending', 'Pending jobs per ClusterQueue', times, queues.map((q) => ({ name: q.name, values: q.pending })), 'jobs'),
      countChart(times, d.admitted, d.preempted),
      h('details', null, h('summary', null, 'The figures as a table'),
        table(null, ['Time', 'Admitted', 'Preempted', ...queues.map((q) => `${q.name}: GPUs / pending`)],
          times.map((t, k) => [when(t), formatNumber(d.admitted[k]), formatNumber(d.preempted[k]),
            ...queues.map((q) => `${formatNumber(q.gpusUsed[k])} / ${formatNumber(q.pending[k])}`)]), { 'data-history-table': '' })));
    return head;
  },
};
