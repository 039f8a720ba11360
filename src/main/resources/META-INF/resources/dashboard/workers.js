// Workers (admin keys): the remote workers seen in the last hour (GET /api/v1/workers), the most recently seen first,
// refreshed every few seconds while the page is open. A worker is its key and the name it claims with; a row shows
// the types its last claim request named, the claims it holds now, and how long ago it last got a task, sent a
// heartbeat and called (the full time in the title). An older server answers 404, and the page says so.
import { get } from './api.js';
import { fill, h, message, refreshing } from './dom.js';

const REFRESH_MS = 5000;

export function render(main) {
  const updated = h('p', { id: 'workers-updated', class: 'help', role: 'status' }, 'Loading…');
  const problem = h('div', { id: 'workers-problem' });
  const listing = h('div', { id: 'workers-list', 'aria-busy': 'true' });
  fill(main, h('h1', {}, 'Workers'),
    h('p', { class: 'help' }, 'The remote workers that called the worker API in the last hour, the most recently seen first. '
      + 'A worker is its key and the name it claims with.'),
    updated, problem, listing);

  return refreshing(REFRESH_MS, async (stopped) => {
    try {
      const answer = await get('/workers');
      if (stopped()) {
        return false;
      }
      const now = Date.now();
      listing.removeAttribute('aria-busy');
      fill(problem);
      fill(listing, answer.workers.length ? table(answer.workers, now)
        : message('info', 'No remote worker called in the last hour.'));
      updated.textContent = `Updated ${new Date(now).toLocaleTimeString()}; refreshes every ${REFRESH_MS / 1000} s.`;
    } catch (refused) {
      if (stopped()) {
        return false;
      }
      listing.removeAttribute('aria-busy');
      if (refused.status === 404) {
        updated.textContent = '';
        fill(listing, h('p', { class: 'info unavailable', role: 'status' },
          'Not available on this server yet (GET /api/v1/workers answers 404).'));
        return false; // no point asking again
      }
      // The last listing stays, under the problem, until a refresh succeeds.
      fill(problem, message('problem', `Could not read the workers: ${refused.message}`));
    }
    return true;
  });
}

function table(workers, now) {
  return h('div', { class: 'scroll' }, h('table', { id: 'workers' },
    h('caption', {}, `${workers.length} worker${workers.length === 1 ? '' : 's'}`),
    h('thead', {}, h('tr', {}, ['Key', 'Worker', 'Types', 'Claims in hand', 'Last claim', 'Last heartbeat', 'Last seen']
      .map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, workers.map((worker) => h('tr', { 'data-key': worker.key, 'data-name': worker.name },
      h('td', { 'data-column': 'Key' }, h('code', {}, worker.key)),
      h('td', { 'data-column': 'Worker' }, h('code', {}, worker.name)),
      h('td', { 'data-column': 'Types' }, worker.types.length ? worker.types.join(', ') : '—'),
      h('td', { 'data-column': 'Claims in hand', class: 'number' }, worker.claimsInHand),
      h('td', { 'data-column': 'Last claim' }, ago(worker.lastClaimAt, now)),
      h('td', { 'data-column': 'Last heartbeat' }, ago(worker.lastHeartbeatAt, now)),
      h('td', { 'data-column': 'Last seen' }, ago(worker.lastSeenAt, now)))))));
}

/** "12 s ago", "3 min ago": how long before `now` an ISO-8601 instant was, the full time in its title; "—" for none. */
function ago(iso, now) {
  if (!iso) {
    return h('span', { title: 'not in the last hour' }, '—');
  }
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) {
    return h('span', {}, iso);
  }
  const seconds = Math.max(0, Math.round((now - at.getTime()) / 1000));
  const text = seconds < 60 ? `${seconds} s ago`
    : seconds < 3600 ? `${Math.floor(seconds / 60)} min ago` : `${Math.floor(seconds / 3600)} h ago`;
  return h('time', { datetime: iso, title: `${at.toLocaleString()} (${iso})` }, text);
}
