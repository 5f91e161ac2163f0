// The experimenter's page: the password comes in the URL fragment (#password).
const password = decodeURIComponent(location.hash.slice(1));
const headers = { authorization: `Bearer ${password}` };
const $ = (id) => document.getElementById(id);
const OPPONENTS = ["kbagent", "person", "conceder", "fair", "bayes", "issues", "threats",
  "optout", "coin", "qo", "graft", "complete"];

for (const o of OPPONENTS) $("opponent").add(new Option(o, o));

async function call(path, options = {}) {
  const r = await fetch(path, { ...options, headers: { ...headers, ...(options.headers || {}) } });
  if (!r.ok) {
    const body = await r.json().catch(() => ({ error: r.statusText }));
    $("error").textContent = body.error;
    return null;
  }
  $("error").textContent = "";
  return r;
}

$("new-study").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = new FormData(ev.target);
  const body = Object.fromEntries(form.entries());
  for (const k of ["side", "participants", "turns", "turn_seconds"]) body[k] = Number(body[k]);
  const r = await call("/api/studies", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!r) return;
  const study = await r.json();
  $("links").innerHTML = `<p>Study <b>${study.id}</b>: one link per participant</p>` +
    "<ol>" + study.links.map((l) => `<li><a class="link" href="${l}">${l}</a></li>`).join("") + "</ol>";
  await refresh();
});

async function download(id) {
  const r = await call(`/api/studies/${id}/csv`);
  if (!r) return;
  const blob = await r.blob();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `${id}.csv`;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

async function refresh() {
  const r = await call("/api/studies");
  if (!r) return;
  const studies = await r.json();
  const table = $("studies");
  while (table.rows.length > 1) table.deleteRow(1);
  for (const s of studies) {
    const row = table.insertRow();
    row.dataset.study = s.id;
    row.insertCell().textContent = s.id;
    const c = s.config;
    row.insertCell().textContent = `${c.domain}, side ${c.side}, vs ${c.opponent}, ${c.participants} people, ${c.turns}×${c.turn_seconds}s`;
    const prog = row.insertCell();
    prog.className = "progress";
    prog.textContent = Object.entries(s.progress).map(([k, v]) => `${k}: ${v}`).join(", ");
    const data = row.insertCell();
    const b = document.createElement("button");
    b.textContent = "Download CSV";
    b.className = "csv";
    b.addEventListener("click", () => download(s.id));
    data.appendChild(b);
  }
}

$("who").textContent = password ? "" : "no password in the URL (#password)";
refresh();
setInterval(refresh, 1000);
