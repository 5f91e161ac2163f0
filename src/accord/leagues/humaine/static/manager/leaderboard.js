// Public leaderboard: accumulated utility of agents and humans, pool standings, champion.
import { api, el, money } from "./common/api.js";
import { header } from "./nav.js";

const $ = (id) => document.getElementById(id);

function rows(list) {
  return list.map((s) => el("tr", { dataset: { name: s.name } },
    el("td", { class: "num" }, s.rank),
    el("td", {}, s.name, s.dummy ? el("span", { class: "tag" }, " dummy") : null),
    el("td", { class: "num" }, s.rounds), el("td", { class: "num" }, money(s.total)),
    el("td", { class: "num" }, money(s.mean))));
}

async function refresh() {
  const b = await api("api/leaderboard");
  $("agents").tBodies[0].replaceChildren(...rows(b.agents));
  $("humans").tBodies[0].replaceChildren(...rows(b.humans));
  $("pools").replaceChildren(...Object.entries(b.pools).map(([g, ranked]) =>
    el("div", {}, el("strong", {}, `Pool ${g}`), el("ol", {}, ranked.map((a) => el("li", {}, a))))));
  $("progress").textContent = `${b.roundsDone} of ${b.roundsTotal} rounds finished` +
    (b.stages.length ? `; stages: ${b.stages.join(", ")}` : "");
  if (b.champion) {
    $("champion").textContent = `Champion: ${b.champion}`;
    $("champion").classList.remove("hidden");
  }
}

await header("leaderboard.html", { needAdmin: false });
await refresh();
setInterval(refresh, 5000);
