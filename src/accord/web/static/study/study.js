// The study's page helpers: API calls (relative to the app's root, so the app may be
// mounted under a prefix) and the live channel (server-sent events).
import { newKey } from "../accord/safe.js";

export const root = new URL("../", import.meta.url);

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
  }
}

export async function api(path, { method = "GET", body } = {}) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  if (method !== "GET") init.headers["Idempotency-Key"] = newKey();
  const r = await fetch(new URL(path, root), init);
  const text = await r.text();
  const data = text ? JSON.parse(text) : null;
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

export function live(path, handlers) {
  const source = new EventSource(new URL(path, root));
  for (const [event, handle] of Object.entries(handlers)) {
    source.addEventListener(event, (e) => handle(JSON.parse(e.data)));
  }
  return source;
}

export function go(next) {
  window.location.assign(new URL(next.replace(/^\//, ""), root));
}

// What a league's task page uses.
export const participant = {
  me: () => api("api/participant"),
  consent: (agree, version) =>
    api("api/participant/consent", { method: "POST", body: { agree, version } }),
  record: (kind, data = {}) =>
    api("api/participant/events", { method: "POST", body: { kind, data } }),
  setState: (state) => api("api/participant/state", { method: "PUT", body: { state } }),
  complete: (result = {}) =>
    api("api/participant/complete", { method: "POST", body: { result } }),
  live: (handlers) => live("api/participant/live", handlers),
};
