// Overview: GET /api/v1/stats and GET /api/v1/schedules every few seconds (admin keys; a submit key gets a message
// instead). The throughput chart is computed here from successive readings, as net changes of the counts between two.
import { ApiError, get } from './api.js';
import { STATUSES, fill, h, message } from './dom.js';
import { lineChart } from './chart.js';

const REFRESH_MS = 3000;
const SCHEDULES_SHOWN = 5;
const SPAN_MS = 5 * 60 * 1000;
const SERIES = [
  { name: 'started', label: 'started', css: 'started' },
  { name: 'succeeded', label: 'succeeded', css: 'succeeded' },
  { name: 'failed', label: 'failed', css: 'failed' },
];

// Kept while the tab is open, so that leaving the page and coming back keeps the chart's history.
const readings = [];
const intervals = [];

/** Tasks that have been started at least once and not sent back to PENDING: its rise counts starts. */
const started = (tasks) => tasks.PROCESSING + tasks.SUCCEEDED + tasks.FAILED + tasks.DEAD;

function record(stats, at) {
  const previous = readings[readings.length - 1];
  readings.push({ at, tasks: stats.tasks });
  if (previous) {
    // A count can also fall (a retry sends a DEAD task back to PENDING): an interval counts rises only.
    const rise = (now, before) => Math.max(0, now - before);
    intervals.push({
      at,
      started: rise(started(stats.tasks), started(previous.tasks)),
      succeeded: rise(stats.tasks.SUCCEEDED, previous.tasks.SUCCEEDED),
      failed: rise(stats.tasks.FAILED + stats.tasks.DEAD, previous.tasks.FAILED + previous.tasks.DEAD),
    });
  }
  while (readings.length > 1 && readings[0].at < at - SPAN_MS) {
    readings.shift();
  }
  while (intervals.length && intervals[0].at < at - SPAN_MS) {
    intervals.shift();
  }
}

export function render(main) {
  const updated = h('p', { id: 'overview-updated', class: 'help', role: 'status' }, 'Loading…');
  const problem = h('div', { id: 'overview-problem' });
  const body = h('div', { id: 'overview-body' });
  fill(main, h('h1', {}, 'Overview'), updated, problem, body);

  let timer = null;
  let stopped = false;
  const refresh = async () => {
    timer = null;
    try {
      const [stats, schedules] = await Promise.all([get('/stats'), get('/schedules').catch(() => null)]);
      if (stopped) {
        return;
      }
      record(stats, Date.now());
      fill(problem);
      draw(body, stats, schedules?.schedules ?? null);
      updated.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${REFRESH_MS / 1000} s.`;
    } catch (refused) {
      if (stopped) {
        return;
      }
      if (refused instanceof ApiError && refused.status === 403) {
        updated.textContent = '';
        fill(body);
        fill(problem, message('info', 'Cluster statistics are for admin keys. Your own tasks are listed under Tasks.'),
          h('p', {}, h('a', { href: '#/tasks' }, 'See your tasks')));
        return; // a submit key never gets them: no point asking again
      }
      fill(problem, message('problem', `Could not read the statistics: ${refused.message}`));
    }
    if (!stopped) {
      timer = setTimeout(refresh, REFRESH_MS);
    }
  };
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function draw(body, stats, schedules) {
  const total = STATUSES.reduce((sum, status) => sum + (stats.tasks[status] ?? 0), 0);
  const counts = h('section', { class: 'card wide', 'aria-labelledby': 'counts-title' },
    h('h2', { id: 'counts-title' }, 'Tasks by status'),
    h('ul', { class: 'counts' },
      STATUSES.map((status) => h('li', { class: `count status-${status.toLowerCase()}` },
        h('a', { href: `#/tasks?status=${status}`, class: 'count-label', id: `count-link-${status}` }, status),
        h('strong', { id: `count-${status}`, class: 'count-value' }, stats.tasks[status] ?? 0))),
      h('li', { class: 'count' }, h('span', { class: 'count-label' }, 'all'),
        h('strong', { id: 'count-total', class: 'count-value' }, total))));

  const sums = Object.fromEntries(SERIES.map((line) => [line.name,
    intervals.reduce((sum, interval) => sum + interval[line.name], 0)]));
  const summary = SERIES.map((line) => `${sums[line.name]} ${line.label}`).join(', ');
  const throughput = h('section', { class: 'card wide', 'aria-labelledby': 'throughput-title' },
    h('h2', { id: 'throughput-title' }, 'Throughput (up to the last 5 minutes)'),
    h('figure', { class: 'throughput' },
      // The axis covers what this page has seen, at least 30 s, at most 5 minutes.
      lineChart(intervals, SERIES, Math.min(SPAN_MS, Math.max(30000, Date.now() - readings[0].at)), `Tasks per ${REFRESH_MS / 1000} s interval: ${summary}`),
      h('figcaption', {},
        h('ul', { class: 'legend' }, SERIES.map((line) => h('li', { class: line.css },
          h('span', { class: 'swatch', 'aria-hidden': 'true' }), `${line.label}: `,
          h('strong', { id: `throughput-${line.name}` }, sums[line.name])))),
        h('span', { class: 'help' },
          `Per ${REFRESH_MS / 1000} s interval, from the rise of the counts between two readings while this page is open.`))));

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
          h('td', {}, h('code', {}, type.type)),
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
  fill(body, h('div', { class: 'grid' }, counts, throughput, queue, replicas, locks, types, next));
  if (focused) {
    document.getElementById(focused)?.focus();
  }
}
