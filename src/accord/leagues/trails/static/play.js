// The Colored Trails game page: board, chips, proposal builder, incoming proposal,
// transfer chooser (with what was promised), click-to-move, score preview.
import { go } from "../study/study.js";
import { api, busy, el, fill, newKey } from "../accord/safe.js";

const LETTERS = "ABCDEFGHIJ";
const $ = (id) => document.getElementById(id);
let state = null;

function chips(vector) {
  if (!vector) return el("span", { class: "muted" }, "hidden");
  const parts = [];
  vector.forEach((n, k) => { for (let i = 0; i < n; i++) parts.push(el("span", { class: `chip c${k}` }, LETTERS[k])); });
  return parts.length ? parts : el("span", { class: "muted" }, "none");
}

function marks(cell, goals, positions, me, other) {
  const out = [el("span", { class: "letter" }, LETTERS[goals.color])];
  if (goals[me] === cell) out.push("★");
  if (goals[other] === cell) out.push("☆");
  if (positions[other] === cell) out.push(el("span", { class: "other-mark" }, "●"));
  if (positions[me] === cell) out.push(el("span", { class: "me-mark" }, "●"));
  return out;
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

// One act of the person: every button of the page is disabled while it runs (and the
// board's squares are not clickable; the body is aria-busy), and the act names the turn and
// phase it was meant for, so a late or repeated click is refused by the server instead of
// landing in the next step. A refused or lost answer brings the page back to the game as
// the server has it (the page may have shown a step that is over).
const BUTTONS = ["send-proposal", "pass", "accept", "reject", "send-transfer", "end-move"];
let pending = false;
function setPending(on) {
  pending = on;
  if (on) document.body.setAttribute("aria-busy", "true");
  else document.body.removeAttribute("aria-busy");
  if (state) renderBoard(state);
}
async function act(body) {
  if (pending) return;
  $("error").textContent = "";
  const at = state ? { turn: state.turn, phase: state.phase } : {};
  await busy(BUTTONS.map($), async () => {
    setPending(true);
    try {
      const s = await api("../api/trails/act", { method: "POST", body: { ...body, ...at }, key: newKey() });
      if (s.error) $("error").textContent = s.error;
      render(s);
    } catch (e) {
      $("error").textContent = e.message;
      await refresh(true);
    } finally {
      setPending(false);
    }
  });
}

// The game as the server has it now; ``force``: shown even if the page showed a later
// version (after a refusal: a change the page heard of may have been rolled back).
function refresh(force = false) {
  return api("../api/trails/state").then((s) => render(s, force)).catch(() => {});
}

function vectorFrom(selector) {
  return [...document.querySelectorAll(selector)].map((i) => Math.max(0, parseInt(i.value || "0", 10)));
}

function renderBoard(s) {
  const board = $("board");
  board.style.gridTemplateColumns = `repeat(${s.cols}, 56px)`;
  board.replaceChildren();
  const me = s.me, other = 1 - s.me;
  const moving = s.myTurn && s.phase === "move";
  const options = moving && !pending
    ? neighbours(s.positions[me], s.rows, s.cols).filter((c) => s.chips[0][s.colors[c]] > 0)
    : [];
  s.colors.forEach((color, cell) => {
    const d = document.createElement("div");
    d.className = `cell c${color}`;
    d.dataset.cell = cell;
    fill(d, marks(cell, { ...s.goals, color }, s.positions, me, other));
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
    body.replaceChildren();
    for (let k = 0; k < s.nColors; k++) {
      body.append(el("tr", {},
        el("td", {}, el("span", { class: `chip c${k}` }, LETTERS[k])),
        el("td", {}, el("input", { type: "number", min: 0, value: 0, class: "give", "data-color": k, name: `give-${k}` })),
        el("td", {}, el("input", { type: "number", min: 0, value: 0, class: "take", "data-color": k, name: `take-${k}` }))));
    }
  }
}

function renderTransfer(s) {
  const body = document.querySelector("#transfer tbody");
  const p = s.promised;
  fill($("promise-text"), p.agreed
    ? ["You promised to send ", el("b", { id: "promised-mine" }, words(p.mine)), "; the other player promised you ",
       el("b", { id: "promised-theirs" }, words(p.theirs)), ". You may send any of your chips."]
    : ["No agreement this turn: ", el("b", { id: "promised-mine" }, "nothing"), " promised. You may still send chips."]);
  const key = `${s.turn}`;
  if (body.dataset.turn !== key) {
    body.dataset.turn = key;
    body.replaceChildren();
    for (let k = 0; k < s.nColors; k++) {
      body.append(el("tr", {},
        el("td", {}, el("span", { class: `chip c${k}` }, LETTERS[k])),
        el("td", {}, el("input", { type: "number", min: 0, max: s.chips[0][k], value: p.mine[k], class: "send", name: `send-${k}` }))));
    }
  }
}

let shown = "";
let version = -1;

function render(s, force = false) {
  if (s.released) { go(s.next); return; }
  if (s.waiting) { $("waiting").hidden = false; $("main").hidden = true; return; }
  // answers may overtake each other (a poll's, an act's, a live update): an older one
  // than the page shows is dropped, so the page never steps back to a step that is over
  if (s.version < version && !force) return;
  version = s.version;
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
  fill($("chips-mine"), chips(s.chips[0]));
  fill($("chips-other"), chips(s.chips[1]));
  renderBoard(s);
  renderBuilder(s);
  $("propose-box").hidden = !(s.myTurn && s.phase === "propose");
  const incoming = s.myTurn && s.phase === "respond" && s.proposal;
  $("incoming").hidden = !incoming;
  if (incoming) {
    fill($("incoming-text"), "They would send you ", el("b", {}, words(s.proposal.get)), " and ask you for ", el("b", {}, words(s.proposal.give)), ".");
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
    fill(r, `Game over (${s.end}). Your final score: `, el("b", { id: "final-score" }, s.scores[s.me]), `; the other player's: ${s.scores[1 - s.me]}.`);
  }
}

$("send-proposal").addEventListener("click", () => act({ kind: "propose", give: vectorFrom("#builder .give"), take: vectorFrom("#builder .take") }));
$("pass").addEventListener("click", () => act({ kind: "pass" }));
$("accept").addEventListener("click", () => act({ kind: "respond", accept: true }));
$("reject").addEventListener("click", () => act({ kind: "respond", accept: false }));
$("send-transfer").addEventListener("click", () => act({ kind: "transfer", send: vectorFrom("#transfer .send") }));
$("end-move").addEventListener("click", () => act({ kind: "endmove" }));

// The game comes live from the server after every committed change (the shared play
// routes' stream, which ends with the game); the page asks itself only while it waits for
// a partner (a wait may end in a release) or while the stream is down (a restart).
const live = new EventSource("../api/trails/live");
live.addEventListener("state", (e) => {
  const s = JSON.parse(e.data);
  render(s);
  if (s.done) live.close();
});
api("../api/trails/state").then(render).catch((e) => { $("error").textContent = e.message; });
setInterval(() => {
  if (!state || (!state.done && live.readyState !== EventSource.OPEN)) refresh();
}, 2000);
