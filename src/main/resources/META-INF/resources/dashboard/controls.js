// Types & schedules (admin keys): pause and resume a task type (GET /api/v1/types, POST
// /api/v1/types/{type}/pause|resume), pause and resume a schedule (GET /api/v1/schedules, PATCH
// /api/v1/schedules/{name} {"paused": bool}). An older server without them answers 404, and this page says so. Each
// type's name leads to its page (typepage.js).
import { get, patch, post } from './api.js';
import { fill, h, message } from './dom.js';

export function render(main) {
  const outcome = h('div', { id: 'controls-outcome' });
  const types = h('div', { id: 'types' }, 'Loading…');
  const schedules = h('div', { id: 'schedules' }, 'Loading…');
  fill(main, h('h1', {}, 'Types & schedules'), outcome,
    h('div', { class: 'grid' },
      h('section', { class: 'card wide', 'aria-labelledby': 'types-title' }, h('h2', { id: 'types-title' }, 'Task types'), types),
      h('section', { class: 'card wide', 'aria-labelledby': 'schedules-title' }, h('h2', { id: 'schedules-title' }, 'Schedules'), schedules)));

  let stopped = false;
  const isStopped = () => stopped;
  const loadTypes = () => load('/types', types, isStopped, (items) => typesTable(items,
    (item) => toggle(`${item.paused ? 'Resume' : 'Pause'} type ${item.type}`, item.paused ? 'Resume' : 'Pause', async () => {
      await post(`/types/${encodeURIComponent(item.type)}/${item.paused ? 'resume' : 'pause'}`);
      loadTypes();
    }, outcome)));
  const loadSchedules = () => load('/schedules', schedules, isStopped, (items) => table('schedules-table', 'Schedule', items,
    (item) => item.name,
    (item) => toggle(`${item.paused ? 'Resume' : 'Pause'} schedule ${item.name}`, item.paused ? 'Resume' : 'Pause', async () => {
      await patch(`/schedules/${encodeURIComponent(item.name)}`, { paused: !item.paused });
      loadSchedules();
    }, outcome)));
  loadTypes();
  loadSchedules();
  return () => {
    stopped = true;
  };
}

async function load(path, target, stopped, draw) {
  try {
    const answer = await get(path);
    if (stopped()) {
      return;
    }
    // GET /schedules answers {"schedules": [...]}; a bare array or {"items": [...]} is read too.
    const items = Array.isArray(answer) ? answer : answer?.schedules ?? answer?.types ?? answer?.items ?? [];
    fill(target, items.length ? draw(items) : message('info', 'None.'));
  } catch (refused) {
    if (stopped()) {
      return;
    }
    fill(target, refused.status === 404
      ? h('p', { class: 'info unavailable', role: 'status' }, `Not available on this server yet (GET /api/v1${path} answers 404).`)
      : message('problem', refused.message));
  }
}

// A row per type, its limits and their use in columns (GET /api/v1/types; a submit key's answer leaves the use out):
// "used / limit" where the type has the limit, "—" where it has none. A type's page shows them too.
export const TYPE_COLUMNS = [
  ['Remote', (type) => (type.remote ? 'yes' : 'no')],
  ['Paused', (type) => (type.paused ? 'yes' : 'no')],
  ['In flight / max concurrency', (type) => usedOf(type.inFlight, type.maxConcurrency)],
  ['Rate used / rate', (type) => usedOf(type.rateUsed, type.rate)],
  ['Max per key', (type) => type.maxPerKey ?? '—'],
  ['Groups at limit', (type) => (type.maxPerKey == null ? '—' : type.keysAtLimit ?? '—')],
  ['Groups held / rate per key', (type) => usedOf(type.keysRateLimited, type.ratePerKey)],
  ['Time-out', (type) => type.timeout ?? '—'],
];

function usedOf(used, limit) {
  if (limit === null || limit === undefined) {
    return '—';
  }
  return used === null || used === undefined ? `${limit}` : `${used} / ${limit}`;
}

function typesTable(items, button) {
  return h('div', { class: 'scroll' }, h('table', { id: 'types-table' },
    h('thead', {}, h('tr', {}, ['Type', ...TYPE_COLUMNS.map(([header]) => header), 'Action']
      .map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, items.map((item) => h('tr', { 'data-name': item.type },
      h('td', {}, h('a', { href: `#/types/${encodeURIComponent(item.type)}`, class: 'type-link' }, h('code', {}, item.type))),
      ...TYPE_COLUMNS.map(([header, cell]) => h('td', { 'data-column': header }, cell(item))),
      h('td', {}, button(item)))))));
}

/** A row per item: its name, whether it is paused, its other fields as they come, and the pause/resume button. */
function table(id, nameHeader, items, name, button) {
  return h('div', { class: 'scroll' }, h('table', { id },
    h('thead', {}, h('tr', {}, [nameHeader, 'Paused', 'Details', 'Action'].map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, items.map((item) => {
      const { paused, ...rest } = item;
      return h('tr', { 'data-name': name(item) },
        h('td', {}, h('code', {}, name(item))),
        h('td', {}, paused ? 'yes' : 'no'),
        h('td', {}, h('code', { class: 'details' }, JSON.stringify(rest))),
        h('td', {}, button(item)));
    }))));
}

function toggle(label, text, act, outcome) {
  const button = h('button', { type: 'button', 'aria-label': label, onclick: async () => {
    button.disabled = true;
    fill(outcome);
    try {
      await act();
      fill(outcome, message('done', `${label}: done.`));
    } catch (refused) {
      fill(outcome, message('problem', `${label} refused (${refused.status}): ${refused.message}`));
      button.disabled = false;
    }
  } }, text);
  return button;
}
