// The Colored Trails game page: board, chips, proposal builder, incoming proposal,
// transfer chooser (with what was promised), click-to-move, score preview.
import { api, participant } from "../study/study.js";

const LETTERS = "ABCDEFGHIJ";
const $ = (id) => document.getElementById(id);
let state = null;

function chips(vector) {
  if (!vector) return '<span class="muted">hidden</span>';
  const parts = [];
  vector.forEach((n, k) => { for (let i = 0; i < n; i++) parts.push(`<span class="chip c${k}">${LETTERS[k]}</span>`); });
  return parts.length ? parts.join("") : '<span class="muted">none</span>';
}

function words(vector) {
  const parts = vector.map((n, k) => (n ? `${n} ${LETTERS[k]}` : "")).filter(Boolean);
  return parts.length ? parts.join(", ") : "nothing";
}

function neighbours(cell, rows, cols) {
  const r = Math.floor(cell / cols), c = cell % cols, out = [];
  if (r > 0) out.push(cell - cols);
  if (r < rows - 1) out.push(cell + cols);
  if (c > 0) out.push(cell - 1);
  if (c < cols - 1) out.push(cell + 1);
  return out;
}

async function act(body) {
  $("error").textContent = "";
  try {
    const s = await api("api/trails/act", { method: "POST", body });
    if (s.error) $("error").textContent = s.error;
    render(s);
  } catch (e) {
    $("error").textContent = e.message;
  }
}

function vectorFrom(selector) {
  return [...document.querySelectorAll(selector)].map((i) => Math.max(0, parseInt(i.value || "0", 10)));
}

function renderBoard(s) {
  const board = $("board");
  board.style.gridTemplateColumns = `repeat(${s.cols}, 56px)`;
  board.innerHTML = "";
  const me = s.me, other = 1 - s.me;
  const moving = s.myTurn && s.phase === "move";
  const options = moving
    ? neighbours(s.positions[me], s.rows, s.cols).filter((c) => s.chips[0][s.colors[c]] > 0)
    : [];
  s.colors.forEach((color, cell) => {
    const d = document.createElement("div");
    d.className = `cell c${color}`;
    d.dataset.cell = cell;
    let mark = "";
    if (s.goals[me] === cell) mark += "★";
    if (s.goals[other] === cell) mark += "☆";
    if (s.positions[other] === cell) mark += '<span class="other-mark">●</span>';
    if (s.positions[me] === cell) mark += '<span class="me-mark">●</span>';
    d.innerHTML = `<span class="letter">${LETTERS[color]}</span>${mark}`;
    if (options.includes(cell)) {
      d.classList.add("can-move");
      d.addEventListener("click", () => act({ kind: "move", cell }));
    }
    board.appendChild(d);
  });
  $("end-move").hidden = !moving;
}

function renderBuilder(s) {
  const body = document.querySelector("#builder tbody");
  if (body.childElementCount !== s.nColors) {
    body.innerHTML = "";
    for (let k = 0; k < s.nColors; k++) {
      body.insertAdjacentHTML("beforeend",
        `<tr><td><span class="chip c${k}">${LETTERS[k]}</span></td>` +
        `<td><input type="number" min="0" value="0" class="give" data-color="${k}" name="give-${k}"></td>` +
        `<td><input type="number" min="0" value="0" class="take" data-color="${k}" name="take-${k}"></td></tr>`);
    }
  }
}

function renderTransfer(s) {
  const body = document.querySelector("#transfer tbody");
  const p = s.promised;
  $("promise-text").innerHTML = p.agreed
    ? `You promised to send <b id="promised-mine">${words(p.mine)}</b>; the other player promised you <b id="promised-theirs">${words(p.theirs)}</b>. You may send any of your chips.`
    : `No agreement this turn: <b id="promised-mine">nothing</b> promised. You may still send chips.`;
  const key = `${s.turn}`;
  if (body.dataset.turn !== key) {
    body.dataset.turn = key;
    body.innerHTML = "";
    for (let k = 0; k < s.nColors; k++) {
      body.insertAdjacentHTML("beforeend",
        `<tr><td><span class="chip c${k}">${LETTERS[k]}</span></td>` +
        `<td><input type="number" min="0" max="${s.chips[0][k]}" value="${p.mine[k]}" class="send" name="send-${k}"></td></tr>`);
    }
  }
}

let shown = "";

function render(s) {
  if (s.waiting) { $("waiting").hidden = false; $("main").hidden = true; return; }
  const key = JSON.stringify(s);
  if (key === shown) return; // nothing new: keep the page still (no re-layout under the pointer)
  shown = key;
  state = s;
  $("waiting").hidden = true;
  $("main").hidden = false;
  $("turn").textContent = s.turn + 1;
  $("phase").textContent = s.phase;
  $("protocol").textContent = s.rules.protocol === "counter"
    ? `up to ${s.rules.rounds} proposals a turn, by turns: after a rejection or a pass the other may propose`
    : "one proposal a turn";
  $("whose").textContent = s.done ? "game over" : s.myTurn ? "your turn" : "waiting for the other player";
  $("score").textContent = s.score;
  $("best").textContent = s.best;
  $("limit").textContent = s.dormantLimit;
  $("dormant-me").textContent = s.dormant[s.me];
  $("dormant-other").textContent = s.dormant[1 - s.me];
  $("chips-mine").innerHTML = chips(s.chips[0]);
  $("chips-other").innerHTML = chips(s.chips[1]);
  renderBoard(s);
  renderBuilder(s);
  $("propose-box").hidden = !(s.myTurn && s.phase === "propose");
  const incoming = s.myTurn && s.phase === "respond" && s.proposal;
  $("incoming").hidden = !incoming;
  if (incoming) {
    $("incoming-text").innerHTML = `They would send you <b>${words(s.proposal.get)}</b> and ask you for <b>${words(s.proposal.give)}</b>.`;
  }
  const transfer = s.myTurn && s.phase === "transfer";
  $("transfer-box").hidden = !transfer;
  if (transfer) renderTransfer(s);
  if (s.last) {
    const l = s.last, me = s.me, other = 1 - s.me;
    $("last").textContent = l.accepted
      ? `Agreement: you promised ${words(l.promised[me])} and sent ${words(l.sent[me])}; they promised ${words(l.promised[other])} and sent ${words(l.sent[other])}.`
      : "No agreement.";
  }
  if (s.done) {
    const r = $("result");
    r.hidden = false;
    r.innerHTML = `Game over (${s.end}). Your final score: <b id="final-score">${s.scores[s.me]}</b>; the other player's: ${s.scores[1 - s.me]}.`;
  }
}

$("send-proposal").addEventListener("click", () => act({ kind: "propose", give: vectorFrom("#builder .give"), take: vectorFrom("#builder .take") }));
$("pass").addEventListener("click", () => act({ kind: "pass" }));
$("accept").addEventListener("click", () => act({ kind: "respond", accept: true }));
$("reject").addEventListener("click", () => act({ kind: "respond", accept: false }));
$("send-transfer").addEventListener("click", () => act({ kind: "transfer", send: vectorFrom("#transfer .send") }));
$("end-move").addEventListener("click", () => act({ kind: "endmove" }));

participant.live({ trails: (s) => render(s) });
api("api/trails/state").then(render).catch((e) => { $("error").textContent = e.message; });
setInterval(() => { if (!state || !state.done) api("api/trails/state").then(render).catch(() => {}); }, 2000);
