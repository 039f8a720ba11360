// Tasks: GET /api/v1/tasks with the filters in the page's address
// (#/tasks?status=&type=&owner=&batch=&text=&limit=&after=), newest first, a page at a time through the listing's
// `next` cursor. The listing carries no payload or result. "Cancel all" and "Retry all" act on every task the
// filters match (POST /api/v1/tasks/actions/cancel or /retry) once a confirmation has shown how many that is.
import { get, post, query, session } from './api.js';
import { STATUSES, fill, h, message, time } from './dom.js';

const PAGE_SIZES = ['10', '20', '50', '100'];
// The cursors of the pages before this one, for "Previous"; reset whenever the filters change.
let trail = { filters: '', cursors: [] };

export function render(main, parameters) {
  const filters = {
    status: parameters.get('status') || '',
    type: parameters.get('type') || '',
    owner: session.isAdmin() ? parameters.get('owner') || '' : '',
    batch: parameters.get('batch') || '',
    text: parameters.get('text') || '',
    limit: PAGE_SIZES.includes(parameters.get('limit')) ? parameters.get('limit') : '20',
  };
  const after = parameters.get('after') || '';
  const key = JSON.stringify(filters);
  if (trail.filters !== key || !after) {
    trail = { filters: key, cursors: [] };
  }

  const form = h('form', { class: 'filters', id: 'task-filters', role: 'search', onsubmit: (event) => {
    event.preventDefault();
    const data = new FormData(form);
    location.hash = `#/tasks${query({ status: data.get('status'), type: data.get('type').trim(),
      owner: (data.get('owner') || '').trim(), batch: data.get('batch').trim(), text: data.get('text').trim(),
      limit: data.get('limit') })}`;
  } },
  field('filter-status', 'Status', h('select', { id: 'filter-status', name: 'status' },
    h('option', { value: '' }, 'any'),
    STATUSES.map((status) => h('option', { value: status, selected: status === filters.status }, status)))),
  field('filter-type', 'Type', h('input', { id: 'filter-type', name: 'type', value: filters.type, placeholder: 'e.g. noop',
    autocomplete: 'off', spellcheck: 'false' })),
  session.isAdmin() ? field('filter-owner', 'Key name (owner)', h('input', { id: 'filter-owner', name: 'owner',
    value: filters.owner, placeholder: 'any', autocomplete: 'off', spellcheck: 'false' })) : null,
  field('filter-text', 'Payload or error contains', h('input', { id: 'filter-text', name: 'text', value: filters.text,
    placeholder: 'any', autocomplete: 'off', spellcheck: 'false' })),
  field('filter-batch', 'Batch', h('input', { id: 'filter-batch', name: 'batch', value: filters.batch, placeholder: 'any',
    autocomplete: 'off', spellcheck: 'false' })),
  field('filter-limit', 'Per page', h('select', { id: 'filter-limit', name: 'limit' },
    PAGE_SIZES.map((size) => h('option', { value: size, selected: size === filters.limit }, size)))),
  h('div', { class: 'field' }, h('button', { type: 'submit', id: 'apply-filters' }, 'Filter')));

  const listing = h('div', { id: 'task-list', 'aria-live': 'polite', 'aria-busy': 'true' }, 'Loading…');
  fill(main, h('h1', {}, 'Tasks'),
    session.isAdmin() ? null : h('p', { class: 'help' }, 'A submit key sees the tasks it submitted.'),
    form, bulkActions(filters), listing);

  let stopped = false;
  get(`/tasks${query({ ...filters, after })}`).then((page) => {
    if (!stopped) {
      show(listing, page, filters, after);
    }
  }, (refused) => {
    if (!stopped) {
      listing.removeAttribute('aria-busy');
      const violations = refused.problem?.violations ?? [];
      fill(listing, message('problem', refused.message),
        violations.length ? h('ul', {}, violations.map((v) => h('li', {}, `${v.field}: ${v.message}`))) : null);
    }
  });
  return () => {
    stopped = true;
  };
}

const BULK = {
  cancel: { button: 'Cancel all matching…', verb: 'Cancel', done: 'cancelled', from: 'unfinished' },
  retry: { button: 'Retry all matching…', verb: 'Retry', done: 'retried', from: 'DEAD or CANCELLED' },
};

/** The bulk actions on the filters' tasks: a count to confirm, then the action's progress until it is done. */
function bulkActions(filters) {
  const { limit, ...chosen } = filters;
  const panel = h('div', { id: 'bulk-panel', 'aria-live': 'polite' });
  const start = (action) => async () => {
    fill(panel, message('info', 'Counting the tasks that match…'));
    try {
      // createdBefore: the bound the count used; the action takes it too, so that it acts on the tasks counted, not
      // on those made since. atLeast: the count stopped at its cap.
      const { count, atLeast, createdAfter, createdBefore } = await get(`/tasks/count${query({ ...chosen, action })}`);
      if (count === 0 && !atLeast) {
        fill(panel, message('info', `No ${BULK[action].from} task matches these filters: nothing to ${action}.`));
        return;
      }
      const many = atLeast ? `at least ${count}` : `${count}`;
      const plural = count === 1 && !atLeast ? '' : 's';
      const confirm = h('button', { type: 'button', id: 'bulk-confirm', class: action === 'cancel' ? 'danger' : '',
        onclick: () => run(action, { count, atLeast, createdAfter, createdBefore }) }, `${BULK[action].verb} ${many} task${plural}`);
      fill(panel, h('div', { class: 'confirm', role: 'alertdialog', 'aria-labelledby': 'bulk-question' },
        h('p', { id: 'bulk-question' }, `${atLeast ? 'At least ' : ''}${count} ${BULK[action].from} task${plural} `
          + `match${plural ? '' : 'es'} these filters${describe(chosen)}`
          + `${createdAfter && !chosen.createdAfter ? ` (a search looks back to ${createdAfter} unless told otherwise)` : ''}`
          + `. ${BULK[action].verb} `
          + `${plural ? 'all of them' : 'it'}?`),
        h('div', { class: 'actions' }, confirm,
          h('button', { type: 'button', id: 'bulk-keep', class: 'secondary', onclick: () => fill(panel) }, 'Keep them'))));
      confirm.focus();
    } catch (refused) {
      fill(panel, message('problem', `Could not count the tasks (${refused.status}): ${refused.message}`));
    }
  };
  const run = async (action, counted) => {
    fill(panel, message('info', `${BULK[action].verb}: starting…`));
    try {
      const body = Object.fromEntries(Object.entries(chosen).filter(([, value]) => value !== ''));
      // The bounds the count used (a text search's window too), so that the action takes the tasks counted.
      if (counted.createdBefore) {
        body.createdBefore = counted.createdBefore;
      }
      if (counted.createdAfter) {
        body.createdAfter = counted.createdAfter;
      }
      let progress = await post(`/tasks/actions/${action}`, body);
      while (progress.state !== 'DONE') {
        // The action's total is known once it is done: until then, the count confirmed.
        fill(panel, h('p', { id: 'bulk-progress', class: 'info', role: 'status' },
          `${BULK[action].verb}: ${progress.lookedAt} of ${counted.atLeast ? 'at least' : 'about'} ${counted.count} `
            + `looked at, ${progress.changed} ${BULK[action].done}…`));
        await new Promise((resolve) => setTimeout(resolve, 1000));
        progress = await get(`/actions/${progress.id}`);
      }
      fill(panel, h('p', { id: 'bulk-progress', class: 'done', role: 'status' },
        `Done: ${progress.changed} of ${progress.lookedAt} task${progress.lookedAt === 1 ? '' : 's'} ${BULK[action].done}`
          + (progress.overQuota ? `, ${progress.overQuota} left for their key's quota.` : '.')));
    } catch (refused) {
      fill(panel, message('problem', `${BULK[action].verb} refused (${refused.status}): ${refused.message}`));
    }
  };
  return h('section', { class: 'bulk', 'aria-label': 'Act on every matching task' },
    h('div', { class: 'actions' },
      h('button', { type: 'button', id: 'bulk-cancel', class: 'secondary', onclick: start('cancel') }, BULK.cancel.button),
      h('button', { type: 'button', id: 'bulk-retry', class: 'secondary', onclick: start('retry') }, BULK.retry.button)),
    panel);
}

function describe(chosen) {
  const named = Object.entries(chosen).filter(([, value]) => value !== '').map(([name, value]) => `${name} ${value}`);
  return named.length ? ` (${named.join(', ')})` : ' (none: every task you can see)';
}

function field(id, label, control) {
  return h('div', { class: 'field' }, h('label', { for: id }, label), control);
}

function show(listing, page, filters, after) {
  listing.removeAttribute('aria-busy');
  const pageNumber = trail.cursors.length + 1;
  const table = page.items.length
    ? h('div', { class: 'scroll' }, h('table', { id: 'tasks', class: 'tasks' },
      h('caption', {}, `Page ${pageNumber}: ${page.items.length} task${page.items.length === 1 ? '' : 's'}, newest first`),
      h('thead', {}, h('tr', {}, ['Task', 'Type', 'Status', 'Attempt', 'Owner', 'Created', 'Updated']
        .map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, page.items.map((task) => h('tr', { 'data-id': task.id, 'data-status': task.status },
        h('td', {}, h('a', { href: `#/task/${task.id}`, class: 'task-link' }, h('code', {}, task.id))),
        h('td', {}, task.type),
        h('td', {}, h('span', { class: `badge status-${task.status.toLowerCase()}` }, task.status)),
        h('td', { class: 'number' }, `${task.attempt} of ${task.maxAttempts}`),
        h('td', {}, task.owner ?? '—'),
        h('td', {}, time(task.createdAt)),
        h('td', {}, time(task.updatedAt)))))))
    : message('info', pageNumber === 1 ? 'No task matches these filters.' : 'No more tasks.');

  const previous = h('button', { type: 'button', id: 'previous-page', disabled: pageNumber === 1, onclick: () => {
    const cursor = trail.cursors.pop();
    location.hash = `#/tasks${query({ ...filters, after: cursor })}`;
  } }, 'Previous page');
  const next = h('button', { type: 'button', id: 'next-page', disabled: !page.next, onclick: () => {
    trail.cursors.push(after);
    location.hash = `#/tasks${query({ ...filters, after: page.next })}`;
  } }, 'Next page');
  fill(listing, table, h('nav', { class: 'pager', 'aria-label': 'Pages' }, previous,
    h('span', { id: 'page-number' }, `Page ${pageNumber}`), next));
}
