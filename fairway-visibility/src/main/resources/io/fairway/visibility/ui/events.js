// The scheduler's events (the API's bounded ring), newest first: filtered by type, job and job set, paged back in time.
import { get, seg } from './api.js';
import { h, link, table, when, go, withQuery } from './dom.js';

const PAGE = 50;
const TYPES = ['SUBMITTED', 'ADMITTED', 'STARTED', 'PREEMPTED', 'REQUEUED', 'RESIZED', 'PRIORITY_CHANGED', 'SUCCEEDED',
  'FAILED', 'CANCELLED', 'PLAN_REFUSED', 'PROVISIONED', 'DEPROVISIONED', 'AUDIT'];

function filters(query) {
  const f = {};
  for (const key of ['type', 'job', 'jobSet', 'before']) {
    const v = query.get(key);
    if (v) f[key] = v;
  }
  return f;
}

export const eventsView = {
  title: () => 'Events',
  load: (p, query) => {
    const f = filters(query);
    return get('/events', { ...f, limit: PAGE }).then((page) => ({ f, page }));
  },
  summary: ({ page }) => {
    const last = page.items[page.items.length - 1];
    return last ? `latest event ${last.type}${last.jobId ? ' of ' + last.jobId : ''}` : 'no events';
  },
  render({ f, page }) {
    const to = (changes, key) => go(withQuery('/events', { ...f, before: null, ...changes }), key);
    const items = [...page.items].reverse();
    const oldestShown = page.items.length ? page.items[0].seq : null;
    const form = h('form.filters', {
      role: 'search', 'aria-label': 'Filter events',
      onsubmit: (e) => {
        e.preventDefault();
        const data = new FormData(e.target);
        to({ job: data.get('job'), jobSet: data.get('jobSet') }, 'ef:apply');
      },
    },
    h('label', null, 'Type ', h('select', { 'data-key': 'ef:type', onchange: (e) => to({ type: e.target.value }, 'ef:type') },
      h('option', { value: '', selected: !f.type }, 'any type'),
      TYPES.map((t) => h('option', { value: t, selected: f.type === t }, t)))),
    h('label', null, 'Job ', h('input', { type: 'text', name: 'job', value: f.job || '', size: 14, 'data-key': 'ef:job' })),
    h('label', null, 'Job set ', h('input', { type: 'text', name: 'jobSet', value: f.jobSet || '', size: 14, 'data-key': 'ef:jobset' })),
    h('button', { type: 'submit', 'data-key': 'ef:apply' }, 'Apply'),
    f.type || f.job || f.jobSet ? h('button', { type: 'button', 'data-key': 'ef:clear', onclick: () => go('/events', 'ef:type') }, 'Clear filters') : null);
    const pager = h('nav.pager', { 'aria-label': 'Pages of events' },
      h('button', { type: 'button', 'data-key': 'ev:newest', disabled: !f.before, onclick: () => to({}, 'ev:newest') }, '« Newest'),
      h('button', { type: 'button', 'data-key': 'ev:older', disabled: !page.more || oldestShown === null,
        onclick: () => to({ before: oldestShown }, 'ev:older') }, 'Older →'),
      h('span', { 'data-field': 'range' }, items.length
        ? `events #${items[items.length - 1].seq}–#${items[0].seq} (ring holds #${page.oldest}–#${page.newest})` : 'none'));
    return h('div', null,
      h('h2', null, 'Events'),
      h('p.lead', null, `The scheduler's events, newest first, ${PAGE} a page; the server keeps the latest ones in a bounded ring.`),
      form,
      pager,
      items.length ? table(null, ['#', 'Time', 'Event', 'Job', 'Job set', 'Why'], items.map((e) => [
        String(e.seq), h('span.nowrap', null, when(e.timeMillis)), h('span.code', null, e.type),
        e.jobId ? link('/jobs/' + seg(e.jobId), e.jobId, { 'data-key': 'ev:' + e.seq }) : '',
        e.jobSet ? link('/jobsets/' + seg(e.jobSet), e.jobSet, { 'data-key': 'evs:' + e.seq }) : '',
        [e.actor ? `by ${e.actor}: ` : '', e.reason || ''],
      ]), { 'data-events': '' }) : h('p.empty', null, 'No events match.'));
  },
};
