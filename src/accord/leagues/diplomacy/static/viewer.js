import { el, fill, dealText } from "./text.js";

let phases = [], index = 0;
const $ = (id) => document.getElementById(id);

async function show() {
  const view = $("view").value;
  const r = await fetch(`/api/phase/${index}?view=${encodeURIComponent(view)}`);
  const p = await r.json();
  $("phase").textContent = `${p.phase} (${index + 1}/${phases.length})`;
  const head = el("tr"); head.append(el("th", "power"), el("th", "centres"));
  fill($("centres"), [head, ...Object.entries(p.centres).map(([k, v]) => {
    const tr = el("tr", null, { "data-power": k });
    tr.append(el("td", k), el("td", v, { class: "n" }));
    return tr;
  })]);
  const deals = Object.entries(p.deals).map(([id, d]) => {
    const ok = p.confirmed.includes(id);
    return el("li", `${id}: ${dealText(d)}${ok ? " — confirmed" : ""}`,
      { "data-id": id, class: ok ? "confirmed" : "" });
  });
  fill($("deals"), deals.length ? deals : [el("li", "none")]);
  const events = p.events.map(e =>
    el("li", `${e.kind} ${e.id} from ${e.from} to ${e.to.join(",") || "nobody"}`));
  fill($("events"), events.length ? events : [el("li", "none")]);
  await new Promise((resolve) => {
    const img = $("mapimg");
    img.onload = img.onerror = resolve;
    img.src = `/api/phase/${index}/map.svg`;
  });
  document.body.dataset.ready = String(index);
}

async function start() {
  const g = await (await fetch("/api/game")).json();
  phases = g.phases;
  $("end").textContent = `ended: ${g.end}`;
  for (const p of g.powers) {
    $("view").appendChild(el("option", `${p} (${g.players[p]})`, { value: p }));
  }
  $("prev").onclick = () => { if (index > 0) { index--; show(); } };
  $("next").onclick = () => { if (index < phases.length - 1) { index++; show(); } };
  $("view").onchange = show;
  show();
}
start();
