// The study's admin page.
import { api, live } from "./study.js";
const $ = (id) => document.getElementById(id);
function rows(table, data) {
  const body = $(table).querySelector("tbody");
  body.replaceChildren(...data.map((cells) => {
    const tr = document.createElement("tr");
    tr.dataset.key = cells[0];
    for (const c of cells) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.append(td);
    }
    return tr;
  }));
}
function show(p) {
  rows("status", Object.entries(p.byStatus));
  rows("conditions", Object.entries(p.conditions).map(([n, c]) => [n, c.active, c.roundsDone]));
  $("events").textContent = p.events;
}
async function open() {
  const s = await api("api/study");
  $("title").textContent = s.design.title;
  show(s.progress);
  $("panel").classList.remove("hidden");
  $("login").classList.add("hidden");
  const source = live("api/study/live", { progress: show });
  source.onopen = () => ($("live-state").textContent = "live");
  source.onerror = () => ($("live-state").textContent = "reconnecting");
}
$("login").onsubmit = async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  try {
    await api("api/login", { method: "POST", body: { username: f.get("username"), password: f.get("password") } });
    $("error").textContent = "";
    await open();
  } catch (e) {
    $("error").textContent = e.message;
  }
};
$("invite").onsubmit = async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  try {
    const made = await api("api/study/invites", { method: "POST", body: { count: Number(f.get("count")), label: f.get("label") } });
    for (const m of made) {
      const li = document.createElement("li");
      li.dataset.pid = m.pid;
      li.textContent = `${m.pid}: ${m.link}`;
      $("links").append(li);
    }
  } catch (e) {
    $("error").textContent = e.message;
  }
};
const me = await api("api/me");
if (me.username) await open(); else $("login").classList.remove("hidden");
