// The dashboard's router: #/overview, #/tasks?filters, #/task/<id>, #/batches, #/batch/<id>, #/controls, #/types/<name>,
// #/audit, #/keys, #/workers; the sign-in page whenever no key is kept. Each page module exports render(main, parameters) and may answer a
// function that stops it (timers).
import { ApiError, get, session, whenUnauthorized } from './api.js';
import { fill, h, message } from './dom.js';
import * as overview from './overview.js';
import * as tasks from './tasks.js';
import * as task from './task.js';
import * as batches from './batches.js';
import * as controls from './controls.js';
import * as audit from './audit.js';
import * as keys from './keys.js';
import * as workers from './workers.js';
import * as typepage from './typepage.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const signOut = document.getElementById('sign-out');
let stopPage = null;
// Pages for admin keys only: a submit key is sent to the overview (their links are hidden from it too).
const ADMIN_PAGES = [controls, audit, keys, workers];

function route() {
  const hash = location.hash.replace(/^#/, '') || '/overview';
  const [path, search] = hash.split('?');
  const parameters = new URLSearchParams(search || '');
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'task' && parts[1]) {
    return { page: task, name: 'tasks', parameters, id: decoded(parts[1]) };
  }
  if (parts[0] === 'batch' && parts[1]) {
    return { page: batches, name: 'batches', parameters, id: decoded(parts[1]) };
  }
  if (parts[0] === 'types' && parts[1]) {
    return { page: typepage, name: 'controls', parameters, id: decoded(parts[1]) };
  }
  const pages = { overview, tasks, controls, audit, keys, workers, batches: { render: batches.renderList } };
  const name = pages[parts[0]] ? parts[0] : 'overview';
  return { page: pages[name], name, parameters };
}

/** A path segment decoded, or as it is when it is not valid percent-encoding: the API then says it is no task id. */
function decoded(segment) {
  try {
    return decodeURIComponent(segment);
  } catch (malformed) {
    return segment;
  }
}

function show(notice) {
  if (stopPage) {
    stopPage();
    stopPage = null;
  }
  if (!session.signedIn()) {
    chrome(false);
    signIn(notice);
    return;
  }
  chrome(true);
  const current = route();
  if (ADMIN_PAGES.includes(current.page) && !session.isAdmin()) {
    location.replace('#/overview');
    return;
  }
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.page === current.name) {
      link.setAttribute('aria-current', 'page');
    } else {
      link.removeAttribute('aria-current');
    }
  }
  fill(main);
  stopPage = current.page.render(main, current.parameters, current.id) || null;
}

function chrome(signedIn) {
  nav.hidden = !signedIn;
  signOut.hidden = !signedIn;
  who.hidden = !signedIn;
  who.textContent = signedIn ? (session.isAdmin() ? 'admin key' : 'submit key') : '';
  for (const link of nav.querySelectorAll('[data-admin-only]')) {
    link.hidden = !(signedIn && session.isAdmin());
  }
}

function signIn(notice) {
  const problem = h('div', { id: 'sign-in-problem' }, notice ? message('problem', notice) : null);
  const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off',
    spellcheck: 'false', required: true, 'aria-describedby': 'api-key-help' });
  const button = h('button', { type: 'submit', id: 'sign-in' }, 'Sign in');
  // method=post: were the script ever bypassed, the browser would not put the key in the URL.
  const form = h('form', { class: 'sign-in', method: 'post', action: '#', onsubmit: async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      fill(problem, message('problem', 'Type an API key.'));
      return;
    }
    button.disabled = true;
    fill(problem, message('info', 'Checking the key…'));
    try {
      await get('/tasks?limit=1', { key });
      // /stats is for admin keys: a 403 says the key is a submit key. Any other answer came after the key passed
      // (a 503 while Redis is down, say), so the key is an admin's.
      let role = 'admin';
      try {
        await get('/stats', { key });
      } catch (refused) {
        if (!(refused instanceof ApiError) || refused.status === 0 || refused.status === 401) {
          throw refused;
        }
        if (refused.status === 403) {
          role = 'submit';
        }
      }
      input.value = '';
      session.start(key, role);
      show();
    } catch (refused) {
      const text = refused.status === 401 ? 'This key is not accepted.' : refused.message;
      fill(problem, message('problem', text));
      button.disabled = false;
      input.focus();
    }
  } },
  h('label', { for: 'api-key' }, 'API key'),
  input,
  h('p', { id: 'api-key-help', class: 'help' },
    'Kept in this browser tab only (session storage) and sent as Authorization: Bearer. Closing the tab or signing out forgets it.'),
  button);
  fill(main, h('section', { class: 'card narrow', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in'), problem, form));
  input.focus();
}

signOut.addEventListener('click', () => {
  session.end();
  history.replaceState(null, '', '#/overview');
  show();
});
whenUnauthorized(() => {
  session.end();
  show('Your key is no longer accepted; sign in again.');
});
window.addEventListener('hashchange', () => {
  show();
  main.focus({ preventScroll: true });
});
show();
