// Keys (admin keys): every API key not revoked, configured or made here (GET /api/v1/keys); a form makes one (POST
// /api/v1/keys), and a key made here can be rotated (POST /api/v1/keys/{name}/rotate, with an overlap) or revoked
// (DELETE /api/v1/keys/{name}). A secret is shown once, in the page only: never kept in storage or put in the URL,
// and gone when the page is left. A refusal shows the problem's detail. An older server answers 404, and the page says so.
import { del, get, post } from './api.js';
import { fill, h, message, time } from './dom.js';

export function render(main) {
  const outcome = h('div', { id: 'keys-outcome', tabindex: '-1' });
  const listing = h('div', { id: 'keys-list', 'aria-busy': 'true' }, 'Loading…');
  let stopped = false;

  async function load() {
    listing.setAttribute('aria-busy', 'true');
    let shown;
    try {
      const answer = await get('/keys');
      shown = answer.keys.length ? table(answer.keys, act) : message('info', 'No key.');
    } catch (refused) {
      shown = refused.status === 404
        ? h('p', { class: 'info unavailable', role: 'status' }, 'Not available on this server yet (GET /api/v1/keys answers 404).')
        : message('problem', refused.message);
    }
    if (!stopped) {
      listing.removeAttribute('aria-busy');
      fill(listing, shown);
    }
  }

  /** Runs a change, `button` disabled meanwhile; shows what `show` makes of its answer, or the refusal's detail. */
  async function act(what, button, change, show) {
    fill(outcome);
    button.disabled = true;
    try {
      const answer = await change();
      if (stopped) {
        return;
      }
      fill(outcome, show(answer));
      load();
    } catch (refused) {
      if (stopped) {
        return;
      }
      fill(outcome, message('problem', `${what} refused (${refused.status}): ${refused.message}`));
    }
    button.disabled = false;
    outcome.focus();
  }

  fill(main, h('h1', {}, 'Keys'),
    h('p', { class: 'help' }, 'The API keys: the configured ones (taskfence.auth.keys, changed only by a restart) and those made here. '
      + 'A secret is shown once, when its key is made or rotated.'),
    outcome,
    h('section', { class: 'card wide', 'aria-labelledby': 'keys-title' }, h('h2', { id: 'keys-title' }, 'API keys'), listing),
    h('section', { class: 'card wide', 'aria-labelledby': 'new-key-title' }, h('h2', { id: 'new-key-title' }, 'New key'),
      newKeyForm(act)));
  load();
  return () => {
    stopped = true;
  };
}

// A column per field of the key (GET /api/v1/keys); null is the service's default.
const COLUMNS = [
  ['Role', (key) => key.role],
  ['Types', (key) => (key.types.length ? key.types.join(', ') : '—')],
  ['Max unfinished', (key) => key.maxUnfinished ?? 'default'],
  ['Weight', (key) => key.weight],
  ['Max priority', (key) => key.maxPriority ?? 'default'],
  ['Rate', (key) => key.rate ?? 'default'],
  ['Allowed hosts', (key) => (key.allowedHosts ? key.allowedHosts.join(', ') || 'none' : 'all allowed')],
];

function table(keys, act) {
  return h('div', { class: 'scroll' }, h('table', { id: 'keys' },
    h('caption', {}, `${keys.length} key${keys.length === 1 ? '' : 's'}`),
    h('thead', {}, h('tr', {}, ['Name', ...COLUMNS.map(([header]) => header), 'Actions']
      .map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, keys.map((key) => h('tr', { 'data-name': key.name },
      h('td', {}, h('code', {}, key.name)),
      ...COLUMNS.map(([header, cell]) => h('td', { 'data-column': header }, cell(key))),
      h('td', {}, key.configured ? h('span', { class: 'badge' }, 'configured') : actions(key.name, act)))))));
}

/** Rotate (with the overlap the old secrets keep working for) and Revoke (once confirmed), for a key made here. */
function actions(name, act) {
  const path = `/keys/${encodeURIComponent(name)}`;
  const overlap = h('input', { class: 'overlap', value: '1h', size: '4', spellcheck: 'false',
    'aria-label': `Overlap of key ${name}'s old secret` });
  const rotate = h('button', { type: 'button', class: 'rotate secondary', title: 'The old secret keeps working for the overlap',
    'aria-label': `Rotate key ${name}`, onclick: () => act(`Rotating key ${name}`, rotate,
      () => post(`${path}/rotate`, { overlap: overlap.value.trim() }),
      (rotated) => secretBox(`Key ${name} has a new secret.`, rotated.secret, null,
        ['Its previous secrets work until ', time(rotated.previousSecretsExpireAt), '.'])) }, 'Rotate');
  const revoke = h('button', { type: 'button', class: 'revoke danger', 'aria-label': `Revoke key ${name}`, onclick: () => {
    if (confirm(`Revoke key ${name}? Its secrets stop working at once; its name is not given again.`)) {
      act(`Revoking key ${name}`, revoke, () => del(path), () => message('done', `Key ${name} revoked.`));
    }
  } }, 'Revoke');
  return h('div', { class: 'key-actions' }, overlap, rotate, revoke);
}

function newKeyForm(act) {
  const field = (id, label, control, help) => h('div', { class: 'field', id: `${id}-field` },
    h('label', { for: id }, label), control, help ? h('p', { class: 'help' }, help) : null);
  const input = (id, attributes = {}) => h('input', { id, name: id, spellcheck: 'false', autocomplete: 'off', ...attributes });
  const name = input('key-name', { required: true, pattern: '[a-z0-9]{1,32}', maxlength: '32',
    title: '1 to 32 lower-case letters and digits' });
  const role = h('select', { id: 'key-role', name: 'key-role' },
    ['submit', 'admin', 'worker'].map((value) => h('option', { value }, value)));
  const types = input('key-types', { placeholder: 'e.g. resize, ocr (or *)' });
  const maxUnfinished = input('key-max-unfinished', { type: 'number', min: '0', placeholder: 'default' });
  const rate = input('key-rate', { placeholder: 'default, e.g. 10/s' });
  const maxPriority = input('key-max-priority', { type: 'number', min: '0', max: '1000', placeholder: '1000' });
  const weight = input('key-weight', { type: 'number', min: '1', max: '100', placeholder: '1' });
  const typesField = field('key-types', 'Types', types, 'A worker key\'s remote types, separated by commas, or * for all.');
  typesField.hidden = true;
  role.addEventListener('change', () => {
    typesField.hidden = role.value !== 'worker';
  });

  const number = (control) => (control.value === '' ? undefined : Number(control.value));
  const make = h('button', { type: 'submit', id: 'make-key' }, 'Make key');
  const form = h('form', { id: 'new-key', class: 'filters', method: 'post', action: '#', onsubmit: (event) => {
    event.preventDefault();
    const body = {
      name: name.value.trim(),
      role: role.value,
      types: role.value === 'worker' ? types.value.split(',').map((type) => type.trim()).filter(Boolean) : undefined,
      maxUnfinished: number(maxUnfinished),
      rate: rate.value.trim() || undefined,
      maxPriority: number(maxPriority),
      weight: number(weight),
    };
    act(`Making key ${body.name}`, make, () => post('/keys', body), (made) => {
      form.reset();
      typesField.hidden = true;
      return secretBox(`Key ${made.key.name} is made.`, made.secret, made.callbackSecret);
    });
  } },
  field('key-name', 'Name', name),
  field('key-role', 'Role', role),
  typesField,
  field('key-max-unfinished', 'Max unfinished', maxUnfinished),
  field('key-rate', 'Rate', rate),
  field('key-max-priority', 'Max priority', maxPriority),
  field('key-weight', 'Weight', weight),
  h('div', { class: 'field' }, make));
  return form;
}

/** The secret just answered, shown this once: it lives in this element only, which leaving the page removes. */
function secretBox(title, secret, callbackSecret, note) {
  const box = h('div', { id: 'key-secret-box', class: 'secret', role: 'status' },
    h('p', {}, h('strong', {}, title), ' Copy the secret now: it will not be shown again.'),
    h('dl', { class: 'pairs' },
      h('dt', {}, 'Secret'), h('dd', {}, h('code', { id: 'key-secret' }, secret)),
      callbackSecret ? [h('dt', {}, 'Callback secret'), h('dd', {}, h('code', { id: 'key-callback-secret' }, callbackSecret))] : null),
    note ? h('p', {}, note) : null,
    h('button', { type: 'button', class: 'secondary', onclick: () => box.remove() }, 'Done, hide it'));
  return box;
}
