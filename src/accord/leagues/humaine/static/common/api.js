// Small helpers shared by the HUMAINE pages: JSON requests and DOM building.

export class ApiError extends Error {
  constructor(status, detail) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.status = status;
  }
}

export async function api(url, { method = "GET", body } = {}) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const r = await fetch(url, init);
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!r.ok) {
    // every Accord service answers a failure with {status: "Failed", code, error, fields?}
    const detail = data && typeof data.error === "string" ? data.error : data;
    throw new ApiError(r.status, detail || r.statusText);
  }
  return data;
}

// el("td", {class: "num"}, "3") builds an element; attributes starting with "on" are events.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function money(v) {
  return (Math.round(Number(v || 0) * 100) / 100).toFixed(2);
}

export function say(node, text, kind = "ok") {
  node.textContent = text || "";
  node.className = `msg ${text ? kind : ""}`;
}

export function clock(seconds) {
  if (seconds === null || seconds === undefined) return "--";
  const s = Math.max(0, Math.ceil(seconds));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}
