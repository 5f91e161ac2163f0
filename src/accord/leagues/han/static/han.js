// The person's page: item board, menus, emotions, the agent's face, timer, survey.
import { go } from "./study/study.js";
import { api, busy, el, fill } from "./accord/safe.js";

const FACES = { happy: "😀", angry: "😠", surprised: "😮", sad: "😢", neutral: "😐" };
const $ = (id) => document.getElementById(id);
let state = null;
let board = null; // my working allocation: rows of [agent, undecided, me]
let boardFromServer = null;

function fmt(s) { const m = Math.floor(s / 60), r = Math.floor(s % 60); return `${m}:${String(r).padStart(2, "0")}`; }

// Send one event; the button that sent it (if any) stays disabled until the answer.
async function send(ev, button) {
  $("error").textContent = "";
  await busy(button, async () => {
    try { render(await api("api/han/event", { method: "POST", body: ev })); }
    catch (e) { $("error").textContent = e.message; }
  });
}

function move(i, from, to) {
  if (board[i][from] > 0) { board[i][from] -= 1; board[i][to] += 1; drawBoard(); send({ kind: "OFFER_IN_PROGRESS" }); }
}

function drawBoard() {
  const tb = $("board");
  tb.replaceChildren();
  state.issues.forEach((name, i) => {
    const tr = el("tr", {}, el("th", {}, `${name} (${state.values[i]})`));
    [0, 1, 2].forEach((col) => {
      const td = document.createElement("td");
      td.className = "cell";
      td.dataset.issue = i; td.dataset.col = col;
      td.id = `cell-${i}-${col}`;
      td.ondragover = (e) => e.preventDefault();
      td.ondrop = (e) => { e.preventDefault(); const [fi, fc] = e.dataTransfer.getData("text").split(",").map(Number); if (fi === i) move(i, fc, col); };
      for (let k = 0; k < board[i][col]; k++) {
        const it = document.createElement("span");
        it.className = "item"; it.draggable = true; it.title = `move one ${name}`;
        it.ondragstart = (e) => e.dataTransfer.setData("text", `${i},${col}`);
        it.onclick = () => move(i, col, col === 1 ? 2 : 1);
        td.appendChild(it);
      }
      const n = document.createElement("small"); n.textContent = ` ${board[i][col]}`; n.className = "count";
      td.appendChild(n);
      tr.appendChild(td);
    });
    tb.appendChild(tr);
  });
}

let waitLeft = null; // seconds left in the waiting room, and when that was said
function render(s) {
  if (s.released) { released(s); return; }
  if (s.waiting) {
    $("waiting").hidden = false; $("game").hidden = true;
    waitLeft = { left: s.left, at: performance.now() };
    $("wait-left").textContent = fmt(s.left);
    return;
  }
  waitLeft = null;
  $("waiting").hidden = true;
  if (!finished) $("game").hidden = false;
  const first = state === null;
  state = s;
  leftAt = performance.now();
  if (first) setup();
  const tableStr = JSON.stringify(s.offer);
  if (board === null || tableStr !== boardFromServer) {
    board = s.offer ? s.offer.map((r) => r.slice()) : s.quantities.map((q) => [0, q, 0]);
    boardFromServer = tableStr;
    drawBoard();
  }
  $("points").textContent = s.points_on_table;
  $("game-no").textContent = s.games > 1 ? `Game ${s.game} of ${s.games}.` : "";
  $("batna").textContent = s.batna;
  $("timer").textContent = fmt(s.left);
  $("warning").hidden = !s.warned;
  $("face").textContent = FACES[s.agentFace] || FACES.neutral;
  $("face").dataset.face = s.agentFace;
  const other = s.partner === "person" ? "Partner" : "Agent";
  const h = $("history");
  const who = (w) => (w === "person" ? "You" : w === "agent" ? other : "");
  fill(h, s.history.map((e) => el("div", { class: String(e.who) }, `${e.t}s ${who(e.who)}: `, el("span", { class: "text" }, e.text))));
  h.scrollTop = h.scrollHeight;
  if (s.result) finish(s);
}

function released(s) {
  finished = true;
  for (const id of ["waiting", "game", "after"]) $(id).hidden = true;
  $("released").hidden = false;
  $("released-text").textContent = s.released;
  $("continue").onclick = () => go(s.next);
}

async function leave() {
  if (!confirm("Leave the study? If a game is running, it ends for both of you.")) return;
  try { const r = await api("api/han/leave", { method: "POST", body: {} }); finished = true; go(r.next); }
  catch (e) { $("error").textContent = e.message; }
}
$("leave-waiting").onclick = leave;

function setup() {
  if (state.partner === "person") {
    $("partner-label").textContent = "Partner"; $("col-partner").textContent = "Partner";
    $("face").setAttribute("aria-label", "partner's face");
    $("leave").hidden = false; $("leave").onclick = leave;
  }
  state.presets.forEach((text, i) => {
    const b = document.createElement("button"); b.textContent = text; b.dataset.preset = i + 1;
    b.onclick = () => send({ kind: "SEND_MESSAGE", preset: i + 1 }, b);
    $("presets").appendChild(b);
  });
  state.emotions.forEach((emo) => {
    const b = document.createElement("button"); b.textContent = `${FACES[emo]} ${emo}`; b.id = `emo-${emo}`;
    b.onclick = () => send({ kind: "SEND_EXPRESSION", emotion: emo }, b);
    $("emotions").appendChild(b);
  });
  for (const sel of [$("pref-a"), $("pref-b")]) {
    state.issues.forEach((n, i) => { const o = document.createElement("option"); o.value = i; o.textContent = n; sel.appendChild(o); });
  }
  $("send-offer").onclick = () => send({ kind: "SEND_OFFER", offer: board }, $("send-offer"));
  $("accept").onclick = () => send({ kind: "FORMAL_ACCEPT" }, $("accept"));
  $("quit").onclick = () => send({ kind: "FORMAL_QUIT" }, $("quit"));
  $("send-pref").onclick = () => send({ kind: "SEND_MESSAGE", preference: {
    issue1: Number($("pref-a").value), issue2: Number($("pref-b").value),
    relation: $("pref-rel").value, query: $("pref-kind").value === "true" } }, $("send-pref"));
  $("send-batna").onclick = () => send({ kind: "SEND_MESSAGE", batna: Number($("batna-claim").value) }, $("send-batna"));
}

let finished = false;
function finish(s) {
  if (finished) return;
  finished = true;
  $("game").hidden = true;
  $("after").hidden = false;
  const how = { deal: "You reached a deal", timeout: "Time ran out", quit: "You both walked away",
    partner_left: "Your partner left the game", left: "You left the game" }[s.result.outcome];
  $("survey-about").hidden = s.partner !== "person";
  $("result").textContent = `${how}: you scored ${s.result.points} points.`;
  $("attention-q").textContent = s.attention;
  fill($("questions"), s.survey.map((q) => el("p", {}, q.text, el("br"),
    [1, 2, 3, 4, 5, 6, 7].map((v) => [el("label", {}, el("input", { type: "radio", name: q.key, value: v }), String(v)), " "]))));
  $("survey").onsubmit = (e) => {
    e.preventDefault();
    busy($("submit-survey"), () => submitSurvey(s));
  };
}

async function submitSurvey(s) {
  const f = new FormData($("survey"));
  const answers = {};
  for (const q of s.survey) answers[q.key] = Number(f.get(q.key));
  try {
    const r = await api("api/han/survey", { method: "POST", body: {
      answers, age: Number(f.get("age")), gender: f.get("gender"),
      english_first: f.get("english") === "on", attention: f.get("attention") || "" } });
    go(r.next);
  } catch (err) { $("result").textContent = err.message; }
}

// The game comes over the live channel: a "state" event whenever something happens
// (and at least every 5 s); the timer counts down here between events. If the channel
// cannot be (re)opened, a slow poll takes over.
let leftAt = 0;
function tick() {
  if (waitLeft) $("wait-left").textContent = fmt(Math.max(0, waitLeft.left - (performance.now() - waitLeft.at) / 1000));
  if (state && !finished) $("timer").textContent = fmt(Math.max(0, state.left - (performance.now() - leftAt) / 1000));
}
setInterval(tick, 250);

async function poll() {
  if (finished) return;
  try { render(await api("api/han/state")); } catch (e) { $("error").textContent = e.message; }
  setTimeout(poll, 5000);
}

function listen() {
  const live = new EventSource("api/han/live");
  live.addEventListener("state", (e) => { $("error").textContent = ""; render(JSON.parse(e.data)); if (finished) live.close(); });
  live.addEventListener("error", (e) => {
    if (e.data) { $("error").textContent = JSON.parse(e.data).error; live.close(); return; }
    if (live.readyState === EventSource.CLOSED && !finished) poll();
  });
}
listen();
