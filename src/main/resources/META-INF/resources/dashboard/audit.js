// Audit log (admin keys): GET /api/v1/audit (#/audit?key=&operation=&after=), newest first: who changed what with an
// admin key, when, and how it was answered. A form narrows it to a key or an operation; "Older entries" follows the
// answer's next. An older server without it answers 404, and this page says so.
import { get, query } from './api.js';
import { fill, h, message, time } from './dom.js';

const PAGE = 50;

export function render(main, parameters) {
  const listing = h('div', { id: 'audit-list', 'aria-live': 'polite', 'aria-busy': 'true' }, 'Loading…');
  const key = h('input', { id: 'audit-key', name: 'key', value: parameters.get('key') || '', spellcheck: 'false',
    placeholder: 'any' });
  const operation = h('input', { id: 'audit-operation', name: 'operation', value: parameters.get('operation') || '',
    spellcheck: 'false', placeholder: 'any, e.g. pauseType' });
  const form = h('form', { id: 'audit-filters', class: 'filters', role: 'search', onsubmit: (event) => {
    event.preventDefault();
    location.hash = `#/audit${query({ key: key.value.trim(), operation: operation.value.trim() })}`;
  } },
  h('div', { class: 'field' }, h('label', { for: 'audit-key' }, 'Key'), key),
  h('div', { class: 'field' }, h('label', { for: 'audit-operation' }, 'Operation'), operation),
  h('div', { class: 'field' }, h('button', { type: 'submit' }, 'Show')));
  fill(main, h('h1', {}, 'Audit log'),
    h('p', { class: 'help' }, 'Each change an admin key asked for, newest first, with the answer it got. Submissions are not in it: a task keeps the key that submitted it.'),
    form, listing);

  let stopped = false;
  const filters = { key: parameters.get('key'), operation: parameters.get('operation') };
  get(`/audit${query({ ...filters, after: parameters.get('after'), limit: PAGE })}`).then((page) => {
    if (stopped) {
      return;
    }
    listing.removeAttribute('aria-busy');
    fill(listing, page.items.length ? entries(page.items) : message('info', 'No entry.'),
      h('p', { class: 'pager' },
        parameters.get('after') ? h('a', { href: `#/audit${query(filters)}`, id: 'audit-newest' }, '← Newest') : null,
        page.next ? h('a', { href: `#/audit${query({ ...filters, after: page.next })}`, id: 'audit-older' },
          'Older entries →') : null));
  }, (refused) => {
    if (stopped) {
      return;
    }
    listing.removeAttribute('aria-busy');
    fill(listing, refused.status === 404
      ? h('p', { class: 'info unavailable', role: 'status' }, 'Not available on this server yet (GET /api/v1/audit answers 404).')
      : message('problem', refused.message));
  });
  return () => {
    stopped = true;
  };
}

function entries(items) {
  return h('div', { class: 'scroll' }, h('table', { id: 'audit', class: 'tasks' },
    h('caption', {}, `${items.length} entr${items.length === 1 ? 'y' : 'ies'}`),
    h('thead', {}, h('tr', {}, ['When', 'Key', 'Operation', 'Request', 'Status', 'Request id']
      .map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, items.map((entry) => h('tr', { 'data-request-id': entry.requestId },
      h('td', {}, time(entry.at)),
      h('td', {}, entry.key),
      h('td', {}, h('code', {}, entry.operation)),
      h('td', {}, h('code', {}, `${entry.method} ${entry.path}`)),
      h('td', { class: 'number' }, entry.status),
      h('td', {}, h('code', {}, entry.requestId)))))));
}
