// Schedule page: pools, knockout stages, rounds with their utilities, starting rounds.
import { api, el, money, say } from "./common/api.js";
import { header } from "./nav.js";

const $ = (id) => document.getElementById(id);
let uiUrl = null;
let uiJoin = null; // the person's link (opens their page session), when known

function utilLink(id, label) {
  return el("span", { class: "util-link", title: "show this utility", onclick: () => showUtility(id, label) }, `u${id}`);
}

async function showUtility(id, label) {
  const u = await api(`api/utilities/${id}`);
  const inner = u.body.utility;
  $("utility-title").textContent = `Utility u${id} (${u.kind}) ${label}`;
  const head = $("utility-table").tHead;
  const body = $("utility-table").tBodies[0];
  if (u.kind === "seller") {
    head.replaceChildren(el("tr", {}, el("th", {}, "Good"), el("th", {}, "Unit"), el("th", { class: "num" }, "Unit cost")));
    body.replaceChildren(...Object.entries(inner).map(([g, s]) =>
      el("tr", {}, el("td", {}, g), el("td", {}, s.unit), el("td", { class: "num" }, money(s.parameters.unitcost)))));
  } else {
    head.replaceChildren(el("tr", {}, el("th", {}, "Product"), el("th", { class: "num" }, "Value"),
      el("th", {}, "Flavourings (amount range: extra value range)")));
    body.replaceChildren(...Object.entries(inner).map(([p, s]) => el("tr", {},
      el("td", {}, p), el("td", { class: "num" }, money(s.parameters.unitvalue)),
      el("td", {}, Object.entries(s.parameters.supplement || {}).map(([f, t]) =>
        `${f} ${t.parameters.minQuantity}-${t.parameters.maxQuantity} ${t.unit}: $${money(t.parameters.minValue)}-$${money(t.parameters.maxValue)}`).join("; ")))));
  }
  $("utility").classList.remove("hidden");
}

function stageCard(stage) {
  const groups = Object.entries(stage.groups).map(([g, members]) => el("div", { class: "card", dataset: { group: g } },
    el("h2", {}, stage.name === "pool" ? `Pool ${g}` : `${stage.name} ${g}`),
    el("ol", {}, members.map((m) => el("li", {}, m, m.startsWith("dummy-") ? el("span", { class: "tag" }, " dummy") : null)))));
  if (stage.byes.length) groups.push(el("div", { class: "card" }, el("h2", {}, `${stage.name} byes`), stage.byes.join(", ")));
  return groups;
}

function statusTag(r) {
  return el("span", { class: `tag ${r.status}`, title: r.error || "" }, r.status);
}

function resultCell(r) {
  if (!r.totals) return "";
  const v = (p) => (r.totals[p] && r.totals[p].utility ? money(r.totals[p].utility.value) : "0.00");
  return `${v("Celia")} / ${v("Watson")} / ${v("Human")}`;
}

function actions(r) {
  const out = [];
  if (r.status === "scheduled" || r.status === "failed") {
    out.push(el("button", { onclick: () => start(r.number) }, "Start"));
  }
  if (r.round_id && uiUrl) {
    out.push(" ", el("a", { href: `${uiUrl}/assistant.html?round=${r.round_id}`, target: "_blank" }, "assistant"),
      " ", el("a", { href: uiJoin || `${uiUrl}/chat.html?round=${r.round_id}`, target: "_blank" }, "chat"));
  }
  return out;
}

async function start(number) {
  try {
    await api(`api/rounds/${number}/start`, { method: "POST" });
    say($("round-msg"), `Round ${number} started.`);
  } catch (e) { say($("round-msg"), `Round ${number}: ${e.message}`, "error"); }
  await refresh();
}

async function refresh() {
  const s = await api("api/schedule");
  uiUrl = s.uiUrl;
  uiJoin = s.uiJoin || null;
  $("stages").replaceChildren(...s.stages.flatMap(stageCard));
  if (!s.stages.length) $("stages").append(el("p", { class: "muted" }, "Nothing scheduled yet: create the pools on the Contestants page."));
  $("rounds").tBodies[0].replaceChildren(...s.rounds.map((r) => el("tr", { dataset: { number: r.number } },
    el("td", { class: "num" }, r.number), el("td", {}, r.stage), el("td", {}, r.group),
    el("td", { class: "num" }, r.slot),
    el("td", {}, `${r.celia} / `, utilLink(r.celia_utility, `for ${r.celia} in round ${r.number}`)),
    el("td", {}, `${r.watson} / `, utilLink(r.watson_utility, `for ${r.watson} in round ${r.number}`)),
    el("td", {}, `${r.human} / `, utilLink(r.buyer_utility, `for ${r.human} in round ${r.number}`)),
    el("td", {}, statusTag(r)), el("td", { class: "num" }, resultCell(r)),
    el("td", { class: "actions" }, actions(r)))));
}

$("next-stage").addEventListener("click", async () => {
  try {
    const r = await api("api/championship", { method: "POST" });
    say($("stage-msg"), `Planned the ${r.stage}: ${r.rounds} rounds.`);
  } catch (e) { say($("stage-msg"), e.message, "error"); }
  await refresh();
});

if (await header("schedule.html")) {
  await refresh();
  setInterval(refresh, 5000);
}
