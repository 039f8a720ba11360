// The API key lives in this tab's sessionStorage only: never in a URL, a cookie or the console. Signing out forgets it
// and the pages' settings kept there.
const KEY = 'taskfence.key';
const ROLE = 'taskfence.role';

export const session = {
  key: () => sessionStorage.getItem(KEY),
  isAdmin: () => sessionStorage.getItem(ROLE) === 'admin',
  signedIn: () => sessionStorage.getItem(KEY) !== null,
  start(key, role) {
    sessionStorage.setItem(KEY, key);
    sessionStorage.setItem(ROLE, role);
  },
  end() {
    for (const name of Object.keys(sessionStorage).filter((stored) => stored.startsWith('taskfence.'))) {
      sessionStorage.removeItem(name);
    }
  },
  /** A choice of the pages (a chart's range) kept for the tab until sign-out; null when none was made. */
  setting: (name) => sessionStorage.getItem(`taskfence.setting.${name}`),
  keep(name, value) {
    sessionStorage.setItem(`taskfence.setting.${name}`, value);
  },
};

/** A refused call: the problem+json answer's detail (or the status line when there is none). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem && problem.detail ? problem.detail : `the server answered ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** Called with the ApiError of any 401, so that the app can send the user back to sign-in. */
let onUnauthorized = () => {};
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

/**
 * One call to /api/v1 with the session's key (or `key`, at sign-in). Answers the parsed JSON body; throws
 * ApiError for any status outside 2xx.
 */
export async function call(method, path, { body, key, signal } = {}) {
  const headers = { Accept: 'application/json, application/problem+json' };
  headers.Authorization = `Bearer ${key ?? session.key() ?? ''}`;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  let answer;
  try {
    answer = await fetch(`/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      signal,
    });
  } catch (unreachable) {
    if (signal?.aborted) {
      throw new ApiError(0, { detail: 'the request was given up' });
    }
    throw new ApiError(0, { detail: 'the service did not answer; is it running?' });
  }
  const text = await answer.text();
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch (notJson) {
      json = null;
    }
  }
  if (!answer.ok) {
    const error = new ApiError(answer.status, json);
    if (answer.status === 401 && key === undefined) {
      onUnauthorized(error);
    }
    throw error;
  }
  return json;
}

export const get = (path, options) => call('GET', path, options);
export const post = (path, body) => call('POST', path, { body });
export const patch = (path, body) => call('PATCH', path, { body });
export const del = (path) => call('DELETE', path);

/** A query string from the entries whose value is not empty. */
export function query(parameters) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined && value !== null && value !== '') {
      search.set(name, value);
    }
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
