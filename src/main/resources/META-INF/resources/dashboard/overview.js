// Overview: GET /api/v1/stats and GET /api/v1/schedules every few seconds (admin keys; a submit key gets a message
// instead), and the history's charts over the chosen range (history.js; a submit key's are of its own tasks).
import { ApiError, get, session } from './api.js';
import { STATUSES, fill, h, message, refreshing } from './dom.js';
import { chosenRange, historyCard } from './history.js';

const REFRESH_MS = 3000;
const SCHEDULES_SHOWN = 5;

export function render(main, parameters) {
  const updated = h('p', { id: 'overview-updated', class: 'help', role: 'status' }, 'Loading…');
  const problem = h('div', { id: 'overview-problem' });
  const body = h('div', { id: 'overview-body', class: 'grid' });
  const history = historyCard({ range: chosenRange(parameters), address: (range) => `#/overview?range=${range}`,
    heading: session.isAdmin() ? 'Tasks over time' : 'Your tasks over time' });
  // The stats' cards are redrawn around the history's card, which is left as it is (it refreshes itself).
  const above = h('div', { class: 'slot' });
  const below = h('div', { class: 'slot' });
  fill(main, h('h1', {}, 'Overview'), updated, problem, fill(body, above, history.element, below));

  const stop = refreshing(REFRESH_MS, async (stopped) => {
    try {
      const [stats, schedules] = await Promise.all([get('/stats'), get('/schedules').catch(() => null)]);
      if (stopped()) {
        return false;
      }
      fill(problem);
      draw(body, above, below, stats, schedules?.schedules ?? null);
      updated.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${REFRESH_MS / 1000} s.`;
    } catch (refused) {
      if (stopped()) {
        return false;
      }
      if (refused instanceof ApiError && refused.status === 403) {
        updated.textContent = '';
        fill(problem, message('info', 'Cluster statistics are for admin keys. Your own tasks are listed under Tasks.'),
          h('p', {}, h('a', { href: '#/tasks' }, 'See your tasks')));
        return false; // a submit key never gets them: no point asking again
      }
      fill(problem, message('problem', `Could not read the statistics: ${refused.message}`));
    }
    return true;
  });
  return () => {
    stop();
    history.stop();
  };
}

/** The cards of the stats: the counts `above` the history's card, the rest `below` it. */
function draw(body, above, below, stats, schedules) {
  const total = STATUSES.reduce((sum, status) => sum + (stats.tasks[status] ?? 0), 0);
  const counts = h('section', { class: 'card wide', 'aria-labelledby': 'counts-title' },
    h('h2', { id: 'counts-title' }, 'Tasks by status'),
    h('ul', { class: 'counts' },
      STATUSES.map((status) => h('li', { class: `count status-${status.toLowerCase()}` },
        h('a', { href: `#/tasks?status=${status}`, class: 'count-label', id: `count-link-${status}` }, status),
        h('strong', { id: `count-${status}`, class: 'count-value' }, stats.tasks[status] ?? 0))),
      h('li', { class: 'count' }, h('span', { class: 'count-label' }, 'all'),
        h('strong', { id: 'count-total', class: 'count-value' }, total))));

  const queue = h('section', { class: 'card', 'aria-labelledby': 'queue-title' },
    h('h2', { id: 'queue-title' }, 'Queue'),
    h('dl', { class: 'pairs' },
      h('dt', {}, 'Stream length (queue depth)'), h('dd', { id: 'queue-depth' }, stats.queueDepth),
      h('dt', {}, 'PENDING tasks'), h('dd', {}, stats.tasks.PENDING ?? 0)));

  const replicas = h('section', { class: 'card', 'aria-labelledby': 'replicas-title' },
    h('h2', { id: 'replicas-title' }, `Replicas (consumers): ${stats.replicas.length}`),
    stats.replicas.length
      ? h('ul', { id: 'replicas', class: 'plain' }, stats.replicas.map((name) => h('li', {}, h('code', {}, name))))
      : h('p', { id: 'replicas' }, 'No consumer in the group.'));

  const locks = h('section', { class: 'card wide', 'aria-labelledby': 'locks-title' },
    h('h2', { id: 'locks-title' }, 'Locks'),
    stats.locks.length
      ? h('div', { class: 'scroll' }, h('table', { id: 'locks' },
        h('thead', {}, h('tr', {}, ['Lock', 'Holder', 'Fencing token', 'Lease left'].map((text) => h('th', { scope: 'col' }, text)))),
        h('tbody', {}, stats.locks.map((lock) => h('tr', {},
          h('td', {}, lock.name), h('td', {}, h('code', {}, lock.holder)), h('td', { class: 'number' }, lock.token),
          h('td', { class: 'number' }, `${(lock.ttlMillis / 1000).toFixed(1)} s`))))))
      : h('p', { id: 'locks' }, 'No lock is held right now (this replica lists the locks it has asked for).'));

  const limited = stats.types ?? [];
  const types = h('section', { class: 'card wide', 'aria-labelledby': 'types-title' },
    h('h2', { id: 'types-title' }, 'Paused and limited types'),
    limited.length
      ? h('div', { class: 'scroll' }, h('table', { id: 'overview-types' },
        h('thead', {}, h('tr', {}, ['Type', 'Paused', 'At once (in flight / max)', 'Rate (started or queued in window)',
          'Per key (groups at their max)', 'Rate per key (groups held back)']
          .map((text) => h('th', { scope: 'col' }, text)))),
        h('tbody', {}, limited.map((type) => h('tr', { 'data-name': type.type },
          h('td', {}, h('a', { href: `#/types/${encodeURIComponent(type.type)}`, class: 'type-link' }, h('code', {}, type.type))),
          h('td', {}, type.paused ? 'paused' : 'no'),
          h('td', { class: 'number' }, type.maxConcurrency == null ? '—' : `${type.inFlight} / ${type.maxConcurrency}`),
          h('td', { class: 'number' }, type.rate == null ? '—' : `${type.rateUsed ?? 0} of ${type.rate}`),
          h('td', { class: 'number' }, type.maxPerKey == null ? '—' : `${type.keysAtLimit ?? 0} at ${type.maxPerKey}`),
          h('td', { class: 'number' },
            type.ratePerKey == null ? '—' : `${type.keysRateLimited ?? 0} held at ${type.ratePerKey}`))))))
      : h('p', { id: 'overview-types' }, 'No type is paused or limited.'));

  const due = (schedules ?? []).filter((schedule) => !schedule.paused && schedule.nextFireAt)
    .sort((a, b) => a.nextFireAt.localeCompare(b.nextFireAt)).slice(0, SCHEDULES_SHOWN);
  const next = h('section', { class: 'card wide', 'aria-labelledby': 'schedules-due-title' },
    h('h2', { id: 'schedules-due-title' }, 'Schedules due next'),
    schedules == null
      ? h('p', { id: 'schedules-due' }, 'Schedules could not be read.')
      : due.length
        ? h('ol', { id: 'schedules-due', class: 'plain' }, due.map((schedule) => h('li', { 'data-name': schedule.name },
          h('code', {}, schedule.name), ` (${schedule.type}) at `,
          h('time', { datetime: schedule.nextFireAt }, new Date(schedule.nextFireAt).toLocaleString()))))
        : h('p', { id: 'schedules-due' }, 'No active schedule.'));

  // Redrawn every few seconds: a focused link keeps the focus.
  const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.id : null;
  fill(above, counts);
  fill(below, queue, replicas, locks, types, next);
  if (focused) {
    document.getElementById(focused)?.focus();
  }
}
