// The visibility API client (docs/reference/visibility-api.md). Same origin: the page and the API share a port.

const BASE = '/api/v1';

/** An answer other than 2xx: the status and the server's message. */
export class ApiError extends Error {
  constructor(status, message, path) {
    super(message);
    this.status = status;
    this.path = path;
  }
}

/**
 * GETs a JSON document.
 * @param {string} path a path below /api/v1, e.g. "/queues"
 * @param {object} [params] query parameters; null/undefined values are left out
 */
export async function get(path, params) {
  return request('GET', path, params);
}

/** POSTs (the simulation's time control); the body, if any, as JSON. */
export async function post(path, params, body) {
  return request('POST', path, params, body);
}

async function request(method, path, params, body) {
  const url = new URL(BASE + path, window.location.origin);
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== null && value !== undefined && value !== '') url.searchParams.set(key, value);
  }
  const init = { method, headers: { Accept: 'application/json' }, cache: 'no-store' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (e) {
    throw new ApiError(0, 'The server cannot be reached (' + e.message + ')', path);
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (e) {
    if (response.ok) throw new ApiError(response.status, 'The server answered something other than JSON', path);
  }
  if (!response.ok) {
    const message = (json && (json.message || json.error)) || text || response.statusText;
    throw new ApiError(response.status, message, path);
  }
  return json;
}

/** Encodes one path segment (queue, job and node names may hold characters such as '/'). */
export function seg(name) {
  return encodeURIComponent(name);
}
