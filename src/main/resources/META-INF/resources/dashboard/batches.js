// Batches: GET /api/v1/batches (#/batches), newest first, and one batch (#/batch/<id>) from GET /api/v1/batches/{id},
// each with its progress (items ended of items), refreshed every few seconds until the batch is complete; an open
// batch can be closed (POST /api/v1/batches/{id}/close). Its tasks are the Tasks page filtered by the batch.
import { get, post, query } from './api.js';
import { fill, h, message, refreshing, time } from './dom.js';

const REFRESH_MS = 3000;

export function renderList(main) {
  const listing = h('div', { id: 'batch-list', 'aria-live': 'polite', 'aria-busy': 'true' }, 'Loading…');
  fill(main, h('h1', {}, 'Batches'),
    h('p', { class: 'help' }, 'Tasks submitted as one batch, and the then task that runs once all of them have ended.'),
    listing);
  return refreshing(REFRESH_MS, async () => {
    const page = await get('/batches?limit=50');
    listing.removeAttribute('aria-busy');
    fill(listing, page.items.length
      ? h('div', { class: 'scroll' }, h('table', { id: 'batches', class: 'tasks' },
        h('caption', {}, `${page.items.length} newest batch${page.items.length === 1 ? '' : 'es'}`),
        h('thead', {}, h('tr', {}, ['Batch', 'Status', 'Progress', 'Succeeded', 'Dead', 'Cancelled', 'Created']
          .map((text) => h('th', { scope: 'col' }, text)))),
        h('tbody', {}, page.items.map((batch) => h('tr', { 'data-id': batch.id, 'data-status': batch.status },
          h('td', {}, h('a', { href: `#/batch/${batch.id}`, class: 'batch-link' }, h('code', {}, batch.id))),
          h('td', {}, h('span', { class: `badge batch-${batch.status.toLowerCase()}` }, batch.status)),
          h('td', {}, progress(batch)),
          h('td', { class: 'number' }, batch.succeeded),
          h('td', { class: 'number' }, batch.dead),
          h('td', { class: 'number' }, batch.cancelled),
          h('td', {}, time(batch.createdAt)))))))
      : message('info', 'No batch yet.'));
    return true;
  }, (refused) => fill(listing, message('problem', refused.message)));
}

export function render(main, parameters, id) {
  const outcome = h('div', { id: 'batch-outcome' });
  const details = h('div', { id: 'batch-details', 'aria-live': 'polite' }, 'Loading…');
  fill(main, h('p', {}, h('a', { href: '#/batches' }, '← Batches')), h('h1', {}, 'Batch ', h('code', {}, id)),
    outcome, details);
  const path = `/batches/${encodeURIComponent(id)}`;
  return refreshing(REFRESH_MS, async () => {
    const batch = await get(path);
    showBatch(details, outcome, batch, path);
    return batch.status !== 'COMPLETE';
  }, (refused) => fill(details, message('problem', refused.message)));
}

function ended(batch) {
  return batch.succeeded + batch.dead + batch.cancelled;
}

function progress(batch) {
  const label = `${ended(batch)} of ${batch.items} ended`;
  return h('span', { class: 'progress' },
    h('progress', { max: Math.max(batch.items, 1), value: batch.items ? ended(batch) : 0, 'aria-label': label }),
    h('span', { class: 'progress-text' }, label));
}

function showBatch(details, outcome, batch, path) {
  const pair = (label, value, valueId) => [h('dt', {}, label), h('dd', { id: valueId }, value)];
  const tasks = (status) => `#/tasks${query({ batch: batch.id, status })}`;
  const close = batch.status === 'OPEN'
    ? h('div', { class: 'actions', role: 'group', 'aria-label': 'Actions' },
      h('button', { type: 'button', id: 'close-batch', onclick: async (event) => {
        event.target.disabled = true;
        try {
          showBatch(details, outcome, await post(`${path}/close`), path);
          fill(outcome, message('done', 'Closed: its then task runs once its tasks have ended.'));
        } catch (refused) {
          fill(outcome, message('problem', `Close refused (${refused.status}): ${refused.message}`));
          event.target.disabled = false;
        }
      } }, 'Close batch'))
    : null;
  fill(details, close, h('div', { class: 'grid' },
    h('section', { class: 'card', 'aria-labelledby': 'batch-progress-title' },
      h('h2', { id: 'batch-progress-title' }, 'Progress'),
      h('div', { id: 'batch-progress' }, progress(batch)),
      h('dl', { class: 'pairs' },
        pair('Status', h('span', { class: `badge batch-${batch.status.toLowerCase()}` }, batch.status), 'batch-status'),
        pair('Tasks', h('a', { href: tasks('') }, String(batch.items)), 'batch-items'),
        pair('Succeeded', h('a', { href: tasks('SUCCEEDED') }, String(batch.succeeded)), 'batch-succeeded'),
        pair('Dead', h('a', { href: tasks('DEAD') }, String(batch.dead)), 'batch-dead'),
        pair('Cancelled', h('a', { href: tasks('CANCELLED') }, String(batch.cancelled)), 'batch-cancelled'),
        pair('Not ended', String(batch.unfinished), 'batch-unfinished'))),
    h('section', { class: 'card', 'aria-labelledby': 'batch-then-title' },
      h('h2', { id: 'batch-then-title' }, 'Then task'),
      h('dl', { class: 'pairs' },
        pair('Task', h('a', { href: `#/task/${batch.thenTaskId}`, id: 'batch-then' }, h('code', {}, batch.thenTaskId))),
        pair('Status', batch.thenStatus
          ? h('span', { class: `badge status-${batch.thenStatus.toLowerCase()}` }, batch.thenStatus) : 'deleted',
        'batch-then-status'),
        pair('Owner (key name)', batch.owner ?? '—'),
        pair('Created', time(batch.createdAt)),
        pair('Closed', time(batch.closedAt)),
        pair('Completed', time(batch.completedAt))))));
}
