/**
 * The API as the inspector calls it: same origin, JSON, and the key or token the user typed,
 * sent as `Authorization: Bearer` and kept in this tab's sessionStorage only (never in a URL,
 * never logged). A 401 asks for one (main.js shows the prompt); a refused one is dropped.
 * `can(role)` says whether the page shows a control: the page's mode allows acting and the
 * caller holds the role (`GET /whoami`, read once by `loadCaller()` before the first draw).
 */

const KEY = 'agentdeck.api-key';
const REFUSED = 'agentdeck.api-key-refused';

/** The page's mode, written into the shell by the server: `on` or `read-only`. */
export const MODE =
  document.querySelector('meta[name="agentdeck-ui-mode"]')?.getAttribute('content') ?? 'on';
const CAN_ACT = MODE === 'on';

/** The caller's roles; every role until `/whoami` says otherwise (a service with no keys). */
let roles = new Set(['read', 'run', 'answer', 'control', 'admin']);

/**
 * Whether the page offers what needs `role`: `run` (start turns and workflows), `answer`
 * (approve, reject, answer questions), `control` (pause, cancel, resume), `admin` (schedules).
 */
export function can(role) {
  return CAN_ACT && roles.has(role);
}

/** Whether the page offers any control at all (otherwise the top bar says read-only). */
export function canAct() {
  return ['run', 'answer', 'control', 'admin'].some(can);
}

/**
 * Learn the caller's roles from `GET /whoami`. A 401 asks for a key (the page reloads with
 * it); a 403 (no `read`) offers nothing; any other failure keeps the default, and the API
 * still refuses what the caller may not do.
 */
export async function loadCaller() {
  try {
    const who = await api('/whoami');
    if (Array.isArray(who?.roles)) roles = new Set(who.roles);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) roles = new Set();
  }
}

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

const keyWatchers = new Set();
let keyWanted = false;

/** Whether the server asked for a key the tab does not have (or refused the one it had). */
export function keyNeeded() {
  return keyWanted;
}

/** Be told when a key becomes needed. Returns the unsubscribe. */
export function onKeyNeeded(watch) {
  keyWatchers.add(watch);
  return () => keyWatchers.delete(watch);
}

/** Whether the last key typed in this tab was refused (the prompt says so). */
export function keyWasRefused() {
  return sessionStorage.getItem(REFUSED) === '1';
}

export function saveKey(key) {
  sessionStorage.setItem(KEY, key);
  sessionStorage.removeItem(REFUSED);
}

export function authHeaders(headers = {}) {
  const key = sessionStorage.getItem(KEY);
  return key ? { ...headers, authorization: `Bearer ${key}` } : headers;
}

/** A 401: forget a refused key and ask for one. */
export function unauthorized() {
  if (sessionStorage.getItem(KEY) !== null) {
    sessionStorage.removeItem(KEY);
    sessionStorage.setItem(REFUSED, '1');
  }
  if (!keyWanted) {
    keyWanted = true;
    for (const watch of keyWatchers) watch();
  }
}

/** Call the API; resolves with the JSON body (null for 204), rejects with an ApiError. */
export async function api(path, { method = 'GET', body, signal } = {}) {
  // Waiting for a key: ask nothing more (each refusal is a console error); the page reloads
  // with the key once it is typed.
  if (keyWanted) throw new ApiError(401, 'an API key is needed');
  const headers = authHeaders({ accept: 'application/json' });
  const init = { method, headers, signal, cache: 'no-store' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (response.status === 401) unauthorized();
  if (response.status === 204) return null;
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = { detail: text };
  }
  if (!response.ok) {
    const detail = typeof parsed?.detail === 'string' ? parsed.detail : response.statusText;
    throw new ApiError(response.status, detail);
  }
  return parsed;
}

/** `?a=1&b=2` from the defined, non-empty values. */
export function query(values) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
