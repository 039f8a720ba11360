// Elements are built here and filled with textContent only: task payloads, errors and names are shown as
// text, never parsed as HTML.

/** h('a', {href: '#/x', class: 'c'}, 'text', child, ...): attributes set as given; `on<event>` adds a listener. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) {
      continue;
    }
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (value === true) {
      element.setAttribute(name, '');
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) {
      continue;
    }
    if (Array.isArray(child)) {
      append(element, child);
    } else if (child instanceof Node) {
      element.append(child);
    } else {
      element.append(document.createTextNode(String(child)));
    }
  }
}

/** Replaces everything inside `element`. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** A message box; role=alert for problems so that screen readers announce them. */
export function message(kind, text) {
  return h('p', { class: kind, role: kind === 'problem' ? 'alert' : 'status' }, text);
}

/** JSON as indented text (null as "none"). */
export function jsonText(value) {
  return value === undefined || value === null ? 'none' : JSON.stringify(value, null, 2);
}

/** An ISO-8601 instant as the browser's local date and time, the ISO form in its title. */
export function time(iso) {
  if (!iso) {
    return h('span', {}, '—');
  }
  const at = new Date(iso);
  return h('time', { datetime: iso, title: iso }, Number.isNaN(at.getTime()) ? iso : at.toLocaleString());
}

/**
 * Runs `load` now, and again `ms` after each run that answered true, until the function it answers is called (the page
 * is left). `load` gets a function telling whether that has happened meanwhile: an answer that comes after it is not
 * drawn. A run that throws is handed to `failed` (unless the page was left) and not repeated.
 */
export function refreshing(ms, load, failed = () => {}) {
  let stopped = false;
  let timer = null;
  const isStopped = () => stopped;
  const run = async () => {
    timer = null;
    let again = false;
    try {
      again = await load(isStopped);
    } catch (refused) {
      if (!stopped) {
        failed(refused);
      }
    }
    if (again && !stopped) {
      timer = setTimeout(run, ms);
    }
  };
  run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

export const STATUSES = ['WAITING', 'PENDING', 'ENQUEUED', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'DEAD', 'CANCELLED'];
