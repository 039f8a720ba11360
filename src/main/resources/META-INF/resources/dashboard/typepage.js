// A task type's page, #/types/<name>?range=24h: its limits and their use (GET /api/v1/types, as the Types page's
// columns) and the history's charts of its tasks (history.js). A submit key sees its own tasks' history.
import { get, session } from './api.js';
import { fill, h, message } from './dom.js';
import { TYPE_COLUMNS } from './controls.js';
import { chosenRange, historyCard } from './history.js';

export function render(main, parameters, name) {
  const address = (range) => `#/types/${encodeURIComponent(name)}?range=${range}`;
  const state = h('div', { id: 'type-state', 'aria-busy': 'true' }, 'Loading…');
  const history = historyCard({ type: name, range: chosenRange(parameters), address,
    heading: session.isAdmin() ? 'Its tasks over time' : 'Your tasks of this type over time' });
  fill(main,
    h('p', { class: 'help' }, session.isAdmin() ? h('a', { href: '#/controls' }, '← Types & schedules') : null),
    h('h1', {}, 'Task type ', h('code', { id: 'type-name' }, name)),
    h('div', { class: 'grid' },
      h('section', { class: 'card wide', 'aria-labelledby': 'type-state-title' },
        h('h2', { id: 'type-state-title' }, 'Limits and their use now'), state,
        h('p', {}, h('a', { href: `#/tasks?type=${encodeURIComponent(name)}`, id: 'type-tasks' }, 'Its tasks'))),
      history.element));

  let stopped = false;
  get('/types').then((answer) => {
    const types = Array.isArray(answer) ? answer : answer?.types ?? [];
    const type = types.find((each) => each.type === name);
    if (!stopped) {
      fill(state, type
        ? h('dl', { class: 'pairs', id: 'type-limits' }, TYPE_COLUMNS.flatMap(([header, cell]) => [
          h('dt', {}, header), h('dd', { 'data-column': header }, cell(type))]))
        : message('info', `No task type named ${name} runs now; the history keeps what its tasks did.`));
    }
  }, (refused) => {
    if (!stopped) {
      fill(state, message('problem', `Could not read the task types: ${refused.message}`));
    }
  }).finally(() => state.removeAttribute('aria-busy'));
  return () => {
    stopped = true;
    history.stop();
  };
}
