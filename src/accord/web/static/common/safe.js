// The pages' shared helpers (served by every Accord app at /accord/safe.js).
//
// Text from agents, other participants and the server is always inserted as text:
// el() and setText() build nodes with textContent, never HTML. api() sends a JSON
// request with an Idempotency-Key (one per act of the person: a double click is one
// act) and turns a refusal into an Error whose message is the server's readable line.
// busy() disables the given buttons while a request runs.

// An element: el("p", { class: "muted", id: "x" }, "text", child, ...).
// Strings become text nodes; attributes named on* and javascript: links are refused.
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (/^on/i.test(k)) throw new Error(`el(): event attribute ${k} refused; use addEventListener`);
    if (k === "class") node.className = String(v);
    else if (k === "text") node.textContent = String(v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "style" && typeof v === "object") Object.assign(node.style, v);
    else if (k === "disabled" || k === "checked" || k === "selected") node[k] = Boolean(v);
    else if (k === "value") node.value = String(v);
    else {
      const s = String(v);
      if ((k === "href" || k === "src" || k === "action") && /^\s*javascript:/i.test(s)) {
        throw new Error(`el(): a javascript: address in ${k} is refused`);
      }
      node.setAttribute(k, s);
    }
  }
  append(node, ...children);
  return node;
}

// Append children: strings and numbers as text, nodes as they are, arrays flattened.
export function append(node, ...children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// Replace a node's content with the given children (text stays text).
export function fill(node, ...children) {
  node.replaceChildren();
  return append(node, ...children);
}

export function setText(node, value) {
  node.textContent = value === undefined || value === null ? "" : String(value);
  return node;
}

export function newKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : `the server answered ${status}`);
    this.status = status;
    this.code = body && body.code;
    this.body = body;
  }
}

export const OFFLINE = "The server cannot be reached just now; please wait a moment and try again.";

// A JSON request; non-GET requests carry an Idempotency-Key (``key``, or a new one).
export async function api(url, { method = "GET", body, key, headers = {} } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  if (method !== "GET" && method !== "HEAD") init.headers["Idempotency-Key"] = key || newKey();
  let r;
  try {
    r = await fetch(url, init);
  } catch (e) {
    throw new ApiError(0, { error: OFFLINE, code: "offline" });
  }
  const text = await r.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = { error: `the server answered ${r.status}` };
  }
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

// Run ``work`` with ``buttons`` disabled (a second click while it runs does nothing);
// returns what work returns; buttons are enabled again afterwards unless work says no.
const running = new WeakSet();
export async function busy(buttons, work) {
  const list = (Array.isArray(buttons) ? buttons : [buttons]).filter(Boolean);
  if (list.some((b) => running.has(b))) return undefined;
  const before = list.map((b) => b.disabled);
  for (const b of list) {
    running.add(b);
    b.disabled = true;
    b.setAttribute("aria-busy", "true");
  }
  try {
    return await work();
  } finally {
    list.forEach((b, i) => {
      running.delete(b);
      b.disabled = before[i];
      b.removeAttribute("aria-busy");
    });
  }
}

// A click handler that runs once at a time: busy(button, handler).
export function onAct(button, handler) {
  button.addEventListener("click", (event) => busy(button, () => handler(event)));
}
