// One task: GET /api/v1/tasks/{id} (payload and result included), its history from GET /api/v1/tasks/{id}/events,
// and the cancel and retry actions (any key may act on the tasks it can see), each refusal shown with the problem's
// detail. Until the task has ended, the page long-polls it (?wait=&progressAfter=) and shows each new progress report.
import { get, post, query } from './api.js';
import { fill, h, jsonText, message, time } from './dom.js';

export function render(main, parameters, id) {
  const details = h('div', { id: 'task-details' }, 'Loading…');
  const actions = h('div', { id: 'task-actions' });
  const outcome = h('div', { id: 'action-outcome' });
  const history = h('section', { class: 'card wide', 'aria-labelledby': 'history-title' },
    h('h2', { id: 'history-title' }, 'History'), h('div', { id: 'task-history' }, 'Loading…'));
  fill(main, h('p', {}, h('a', { href: '#/tasks' }, '← Tasks')), h('h1', {}, 'Task ', h('code', {}, id)),
    outcome, actions, details, history);

  let stopped = false;
  const following = new AbortController(); // leaving the page ends its long poll, which holds one of the key's places
  const path = `/tasks/${encodeURIComponent(id)}`;
  get(path).then((task) => {
    if (stopped) {
      return;
    }
    showTask(details, task);
    followProgress(path, task, details, () => stopped, following.signal);
    fill(actions, h('div', { class: 'actions', role: 'group', 'aria-label': 'Actions' },
      actionButton('cancel', 'Cancel task', path, details, outcome),
      actionButton('retry', 'Retry task', path, details, outcome)));
    loadHistory(path, history.querySelector('#task-history'), () => stopped);
  }, (refused) => {
    if (!stopped) {
      fill(details, message('problem', refused.message));
      fill(history.querySelector('#task-history'));
      history.hidden = true;
    }
  });
  return () => {
    stopped = true;
    following.abort();
  };
}

function actionButton(action, label, path, details, outcome) {
  const button = h('button', { type: 'button', id: `${action}-task`, class: action === 'cancel' ? 'danger' : '',
    onclick: async () => {
      button.disabled = true;
      fill(outcome);
      try {
        const task = await post(`${path}/${action}`);
        showTask(details, task);
        fill(outcome, message('done', `${action === 'cancel' ? 'Cancelled' : 'Sent back to PENDING'}: the task is ${task.status}.`));
      } catch (refused) {
        fill(outcome, message('problem', `${label} refused (${refused.status}): ${refused.message}`));
      } finally {
        button.disabled = false;
      }
    } }, label);
  return button;
}

function showTask(details, task) {
  const pair = (label, value, valueId) => [h('dt', {}, label), h('dd', { id: valueId }, value)];
  fill(details, h('div', { class: 'grid' },
    h('section', { class: 'card', 'aria-labelledby': 'task-summary-title' },
      h('h2', { id: 'task-summary-title' }, 'Summary'),
      h('dl', { class: 'pairs' },
        pair('Status', h('span', { class: `badge status-${task.status.toLowerCase()}` }, task.status), 'task-status'),
        pair('Type', task.type, 'task-type'),
        pair('Attempt', `${task.attempt} of ${task.maxAttempts}`),
        pair('Priority', task.priority),
        pair('Owner (key name)', task.owner ?? '—', 'task-owner'),
        pair('Run at', time(task.runAt)),
        pair('Deadline', time(task.deadline)),
        pair('Created', time(task.createdAt)),
        pair('Updated', time(task.updatedAt)))),
    progressCard(task),
    h('section', { class: 'card', 'aria-labelledby': 'task-error-title' },
      h('h2', { id: 'task-error-title' }, 'Last error'),
      h('pre', { id: 'task-error', tabindex: '0' }, task.lastError ?? 'none')),
    h('section', { class: 'card', 'aria-labelledby': 'task-payload-title' },
      h('h2', { id: 'task-payload-title' }, 'Payload'),
      h('pre', { id: 'task-payload', tabindex: '0' }, jsonText(task.payload))),
    h('section', { class: 'card', 'aria-labelledby': 'task-result-title' },
      h('h2', { id: 'task-result-title' }, 'Result'),
      h('pre', { id: 'task-result', tabindex: '0' }, jsonText(task.result)))));
}

// What the task's running attempt reported: a bar when it has numbers done and total, its message, the JSON.
function progressCard(task) {
  const report = task.progress;
  const card = h('section', { class: 'card', id: 'task-progress-card', 'aria-labelledby': 'task-progress-title' },
    h('h2', { id: 'task-progress-title' }, 'Progress'));
  if (!report) {
    card.append(h('p', { id: 'task-progress', class: 'info' }, 'No progress reported.'));
    return card;
  }
  const { done, total, message: text } = report;
  const counted = Number.isFinite(done) && Number.isFinite(total) && total > 0;
  const label = counted ? `${done} of ${total} (${Math.round(Math.min(done / total, 1) * 100)} %)` : '';
  card.append(h('div', { id: 'task-progress' },
    counted ? h('span', { class: 'progress' },
      h('progress', { id: 'task-progress-bar', max: total, value: Math.min(done, total), 'aria-label': label }),
      h('span', { class: 'progress-text' }, label)) : '',
    typeof text === 'string' ? h('p', { id: 'task-progress-message' }, text) : '',
    h('p', { class: 'help' }, 'Reported ', time(task.progressAt)),
    h('pre', { tabindex: '0' }, jsonText(report))));
  return card;
}

// Until the task ends: wait for its next progress report or its end, and show the task again each time. A wait that
// failed or was refused for the moment (429, 5xx) is tried again 5 s later while the page is open; any other refusal
// stops following (the page shows what it last read).
async function followProgress(path, task, details, stopped, signal) {
  let shown = task;
  let before = task;
  while (!stopped() && !['SUCCEEDED', 'DEAD', 'CANCELLED'].includes(shown.status)) {
    try {
      shown = await get(path + query({ wait: '30s', progressAfter: shown.progressAt ?? shown.createdAt }), { signal });
    } catch (refused) {
      if (refused.status >= 400 && refused.status < 500 && refused.status !== 429) {
        return;
      }
      await new Promise((resume) => setTimeout(resume, 5000));
      continue;
    }
    if (stopped()) {
      return;
    }
    const card = details.querySelector('#task-progress-card');
    if (card && shown.status === before.status && shown.attempt === before.attempt) {
      card.replaceWith(progressCard(shown)); // the rest as it was: a reader's place in the payload stays
    } else {
      showTask(details, shown);
    }
    before = shown;
  }
}

async function loadHistory(path, target, stopped) {
  try {
    const history = await get(`${path}/events`);
    if (stopped()) {
      return;
    }
    const items = history?.items ?? [];
    fill(target, items.length
      ? h('div', { class: 'scroll' }, h('table', { id: 'task-events' },
        h('thead', {}, h('tr', {}, ['At', 'From', 'To', 'Attempt', 'Worker', 'Error or note']
          .map((text) => h('th', { scope: 'col' }, text)))),
        h('tbody', {}, items.map((event) => h('tr', {},
          h('td', {}, time(event.at)), h('td', {}, event.from ?? '—'), h('td', {}, event.to ?? '—'),
          h('td', { class: 'number' }, event.attempt ?? '—'), h('td', {}, event.worker ?? '—'),
          h('td', {}, event.error ?? event.note ?? ''))))))
      : message('info', 'No recorded status change yet.'));
  } catch (refused) {
    if (stopped()) {
      return;
    }
    // The task was just read, so a 404 here means this server has no history endpoint (an older version).
    fill(target, refused.status === 404
      ? h('p', { id: 'history-unavailable', class: 'info', role: 'status' }, 'History not available on this server.')
      : message('problem', `Could not read the history: ${refused.message}`));
  }
}
