import { el, fill, dealText } from "./text.js";

const $ = (id) => document.getElementById(id);
let state = null, unitsKey = "", mapPhase = "", toKey = "";

async function api(path, body) {
  const opts = body === undefined ? { method: "POST" } :
    { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    $("error").textContent = (data.error && data.error.message) || `request failed (${r.status})`;
    throw new Error($("error").textContent);
  }
  $("error").textContent = "";
  return data;
}

function renderUnits(s) {
  const key = s.phase + JSON.stringify(s.allowed);
  if (key === unitsKey) return;
  unitsKey = key;
  const rows = Object.entries(s.allowed).map(([unit, orders]) => {
    const tr = el("tr", null, { "data-unit": unit });
    const sel = el("select", null, { "data-unit": unit });
    sel.append(el("option", "(tactical module's choice)", { value: "" }));
    for (const o of orders) sel.append(el("option", o, { value: o }));
    if (s.orders[unit]) sel.value = s.orders[unit];
    const td = el("td"); td.append(sel);
    tr.append(el("td", unit), td);
    return tr;
  });
  fill($("units"), rows);
  $("orders-sent").textContent = "";
}

function renderTo(s) {
  const key = s.power + Object.keys(s.players).join();
  if (key === toKey) return;
  toKey = key;
  fill($("to"), Object.keys(s.players).filter(p => p !== s.power)
    .map(p => el("option", `${p} (${s.players[p]})`, { value: p })));
}

function render(s) {
  $("power").textContent = s.power;
  $("phase").textContent = s.phase;
  $("clock").textContent = Math.ceil(s.seconds_left);
  $("end").textContent = s.end ? `game over: ${s.end}` : "";
  renderUnits(s);
  renderTo(s);
  fill($("proposals"), s.proposals.map(p => {
    const li = el("li", `${p.id}: ${dealText(p.deal)} (accepted by ${p.accepted.join(", ")}) `,
      { "data-id": p.id });
    if (!p.accepted.includes(s.power)) {
      const yes = el("button", "accept", { class: "accept" });
      yes.onclick = () => api(`/api/proposals/${encodeURIComponent(p.id)}/accept`).then(poll);
      const no = el("button", "reject", { class: "reject" });
      no.onclick = () => api(`/api/proposals/${encodeURIComponent(p.id)}/reject`).then(poll);
      li.append(yes, no);
    }
    return li;
  }));
  fill($("deals"), s.confirmed.map(d => el("li", `${d.id}: ${dealText(d.deal)}`, { "data-id": d.id })));
  const last = s.last || {};
  $("last-phase").textContent = last.phase || "none yet";
  fill($("kept"), Object.entries(last.kept || {}).map(([id, by]) => {
    const ok = Object.values(by).every(Boolean);
    return el("li", `${id}: ${ok ? "kept" : "broken"} by ${Object.keys(by).join(", ")}`,
      { "data-id": id, class: ok ? "kept" : "broken" });
  }));
  fill($("last-orders"), Object.entries(last.orders || {}).map(([p, os]) => {
    const tr = el("tr", null, { "data-power": p });
    tr.append(el("td", p), el("td", os.join("; ")));
    return tr;
  }));
  fill($("centres"), Object.entries(s.centres).map(([p, n]) => {
    const tr = el("tr", null, { "data-power": p });
    tr.append(el("td", `${p} (${s.players[p]})`), el("td", n, { class: "n" }));
    return tr;
  }));
  fill($("messages"), s.messages.slice().reverse().map(m =>
    el("li", `${m.phase}: ${m.kind} ${m.id} from ${m.from}`)));
  if (mapPhase !== s.phase) {
    mapPhase = s.phase;
    $("mapimg").src = `/api/map.svg?phase=${encodeURIComponent(s.phase)}`;
  }
  document.body.dataset.phase = s.phase;
}

async function poll() {
  const r = await fetch("/api/state");
  if (!r.ok) { $("error").textContent = "not signed in: open your game link again"; return; }
  state = await r.json();
  render(state);
}

function dealFromForm() {
  const [y, s] = state.when;
  const when = $("when").value === "next" ? (s === "S" ? [y, "F"] : [y + 1, "S"]) : [y, s];
  const to = $("to").value, what = $("what").value.trim().toUpperCase();
  if ($("kind").value === "dmz") {
    const provs = what.split(/[\s,]+/).filter(Boolean);
    return { commitments: [], dmzs: [[when[0], when[1], [state.power, to], provs]] };
  }
  return { commitments: [[when[0], when[1], to, what]], dmzs: [] };
}

function start() {
  $("propose").onclick = () => api("/api/propose", dealFromForm()).then(poll).catch(() => {});
  $("submit-orders").onclick = () => {
    const orders = [...document.querySelectorAll("#units select")].map(s => s.value).filter(Boolean);
    api("/api/orders", { orders }).then(r => {
      $("orders-sent").textContent = `sent ${Object.keys(r.orders).length}`;
    }).catch(() => {});
  };
  $("end-round").onclick = () => api("/api/end-round").then(poll).catch(() => {});
  poll();
  setInterval(poll, 1000);
}
start();
