// Recent events, newest first.
import { get, seg } from './api.js';
import { h, link, table, duration } from './dom.js';

export const eventsView = {
  title: () => 'Events',
  load: () => get('/events', { limit: 200 }),
  summary: (data) => {
    const items = data.items || [];
    return items.length ? `${items.length} recent events, latest: ${items[items.length - 1].message || items[items.length - 1].type}` : 'no events';
  },
  render(data) {
    const items = [...(data.items || [])].reverse();
    return h('div', null,
      h('h2', null, 'Recent events'),
      h('p.lead', null, 'The scheduler\'s latest events, newest first.'),
      items.length ? table(null, ['Time', 'Type', 'Job', 'Message'], items.map((e) => [
        duration(e.timeSeconds), h('span.code', null, e.type),
        e.jobId ? link('/jobs/' + seg(e.jobId), e.jobId, { 'data-key': 'ev:' + e.seq }) : '',
        e.message || '',
      ])) : h('p.empty', null, 'No events yet.'));
  },
};
