// Recent events (the API's bounded ring), newest first.
import { get, seg } from './api.js';
import { h, link, table, when } from './dom.js';

export const eventsView = {
  title: () => 'Events',
  load: () => get('/events', { limit: 200 }),
  summary: (data) => {
    const last = data.items[data.items.length - 1];
    return last ? `latest event ${last.type}${last.jobId ? ' of ' + last.jobId : ''}` : 'no events';
  },
  render(data) {
    const items = [...data.items].reverse();
    return h('div', null,
      h('h2', null, 'Recent events'),
      h('p.lead', null, `The scheduler's latest ${items.length} events, newest first.`),
      items.length ? table(null, ['#', 'Time', 'Event', 'Job', 'Why'], items.map((e) => [
        String(e.seq), h('span.nowrap', null, when(e.timeMillis)), h('span.code', null, e.type),
        e.jobId ? link('/jobs/' + seg(e.jobId), e.jobId, { 'data-key': 'ev:' + e.seq }) : '',
        [e.actor ? `by ${e.actor}: ` : '', e.reason || ''],
      ]), { 'data-events': '' }) : h('p.empty', null, 'No events yet.'));
  },
};
