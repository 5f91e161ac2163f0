// Contestants page: register agents and humans, edit settings, create the pools.
import { api, el, say } from "./common/api.js";
import { header } from "./nav.js";

const $ = (id) => document.getElementById(id);

async function refresh() {
  const c = await api("api/contestants");
  $("agents").tBodies[0].replaceChildren(...c.agents.map((a) => el("tr", { dataset: { name: a.name } },
    el("td", {}, a.name),
    el("td", { class: "muted" }, `${a.protocol}://${a.host}:${a.port}`,
      a.authenticated === false ? el("span", { class: "unauth", style: "color: var(--warn); font-weight: 600;" }, " unauthenticated (original agent)") : null),
    el("td", {}, el("button", { class: "danger", onclick: () => remove("agents", a.name, "agent-msg") }, "Remove")))));
  $("humans").tBodies[0].replaceChildren(...c.humans.map((h) => el("tr", { dataset: { name: h } },
    el("td", {}, h),
    el("td", {}, el("button", { class: "danger", onclick: () => remove("humans", h, "human-msg") }, "Remove")))));
}

async function remove(kind, name, msg) {
  try {
    await api(`api/${kind}/${encodeURIComponent(name)}`, { method: "DELETE" });
    say($(msg), `Removed ${name}.`);
    await refresh();
  } catch (e) { say($(msg), e.message, "error"); }
}

function formData(form) { return Object.fromEntries(new FormData(form)); }

$("add-agent").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const d = formData(ev.target);
  try {
    await api("api/agents", { method: "POST", body: { name: d.name, host: d.host, port: Number(d.port), authenticated: !d.original } });
    say($("agent-msg"), `Registered agent ${d.name}.`);
    ev.target.name.value = ""; ev.target.port.value = "";
    await refresh();
  } catch (e) { say($("agent-msg"), e.message, "error"); }
});

$("add-human").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const d = formData(ev.target);
  try {
    await api("api/humans", { method: "POST", body: { name: d.name } });
    say($("human-msg"), `Registered human ${d.name}.`);
    ev.target.name.value = "";
    await refresh();
  } catch (e) { say($("human-msg"), e.message, "error"); }
});

async function loadSettings() {
  const s = await api("api/settings");
  const f = $("settings");
  f.nPools.value = s.nPools; f.seed.value = s.seed; f.advance.value = String(s.advance);
  f.roundsPerMatch.value = s.roundsPerMatch; f.humanBudget.value = s.humanBudget;
  f.warmUp.value = s.durations.warmUp; f.round.value = s.durations.round; f.post.value = s.durations.post;
  f.dummyHost.value = s.dummyAgent ? s.dummyAgent.host : "";
  f.dummyPort.value = s.dummyAgent ? s.dummyAgent.port : "";
}

$("settings").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const d = formData(ev.target);
  const body = {
    nPools: Number(d.nPools), seed: Number(d.seed), advance: Number(d.advance),
    roundsPerMatch: Number(d.roundsPerMatch), humanBudget: Number(d.humanBudget),
    durations: { warmUp: Number(d.warmUp), round: Number(d.round), post: Number(d.post) },
    dummyAgent: d.dummyHost && d.dummyPort ? { host: d.dummyHost, port: Number(d.dummyPort) } : null,
  };
  try {
    await api("api/settings", { method: "PUT", body });
    say($("settings-msg"), "Settings saved.");
  } catch (e) { say($("settings-msg"), e.message, "error"); }
});

$("make-pools").addEventListener("click", async () => {
  try {
    const r = await api("api/pools", { method: "POST" });
    say($("plan-msg"), `Scheduled ${r.rounds} pool rounds in ${Object.keys(r.groups).length} pool(s).`);
    setTimeout(() => { location.href = "schedule.html"; }, 600);
  } catch (e) { say($("plan-msg"), e.message, "error"); }
});

$("reset").addEventListener("click", async () => {
  if (!confirm("Forget the schedule and all results? Contestants stay.")) return;
  try {
    await api("api/reset", { method: "POST" });
    say($("plan-msg"), "Schedule and results cleared.");
  } catch (e) { say($("plan-msg"), e.message, "error"); }
});

if (await header("index.html")) {
  await refresh();
  await loadSettings();
}
