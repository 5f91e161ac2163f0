// Replay of a stored agent-vs-agent game, turn by turn, with the play page's board view.
// The record (the JSON of `accord trails play --json`) is embedded in #record.
const LETTERS = "ABCDEFGHIJ";
const $ = (id) => document.getElementById(id);
const rec = JSON.parse($("record").textContent);
const setup = rec.setup;
const rows = setup.board.length, cols = setup.board[0].length;
const colors = setup.board.join("").split("").map((ch) => LETTERS.indexOf(ch));
let frame = 0;

// The page is self-contained (no module imports): a small el() that builds text as text.
function el(tag, cls, ...children) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  for (const c of children.flat()) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function chips(vector) {
  const parts = [];
  vector.forEach((n, k) => { for (let i = 0; i < n; i++) parts.push(el("span", `chip c${k}`, LETTERS[k])); });
  return parts.length ? parts : [el("span", "muted", "none")];
}
const letters = (v) => v.map((n, k) => LETTERS[k].repeat(n)).join("") || "-";

function state(f) {
  if (f === 0) return { positions: setup.starts, chips: setup.chips, turn: null };
  const h = rec.history[f - 1];
  return { positions: h.positions, chips: h.chips, turn: h };
}

function render() {
  const s = state(frame);
  const board = $("board");
  board.style.gridTemplateColumns = `repeat(${cols}, 56px)`;
  board.replaceChildren();
  colors.forEach((color, cell) => {
    const d = document.createElement("div");
    d.className = `cell c${color}`;
    d.dataset.cell = cell;
    d.append(el("span", "letter", LETTERS[color]));
    if (setup.goals[0] === cell) d.append("★");
    if (setup.goals[1] === cell) d.append("☆");
    if (s.positions[1] === cell) d.append(el("span", "other-mark", "●"));
    if (s.positions[0] === cell) d.append(el("span", "me-mark", "●"));
    board.appendChild(d);
  });
  for (const k of [0, 1]) {
    $(`chips-${k}`).replaceChildren(...chips(s.chips[k]));
    $(`pos-${k}`).textContent = s.positions[k];
  }
  $("frame").textContent = frame === 0 ? "start" : `turn ${frame} of ${rec.history.length}`;
  const h = s.turn;
  $("turn-box").hidden = !h;
  if (h) {
    const offers = (h.offers || []).map((o) => el("li", "",
      `${rec.agents[o.from]} (player ${o.from}) gives ${letters(o.give)}, asks ${letters(o.take)}: ` +
      `${o.accepted ? "accepted" : "not accepted"}`));
    $("offers").replaceChildren(...(offers.length ? offers : [el("li", "", "no proposal")]));
    $("promised").textContent = h.promised.map((p) => letters(p.length ? p : [])).join(" | ");
    $("sent").textContent = h.sent.map((p) => letters(p.length ? p : [])).join(" | ");
    $("moved").textContent = h.moved.join(" | ");
  }
  const last = frame === rec.history.length;
  $("final").hidden = !last;
  if (last) $("final").textContent = `ended by ${rec.end}; scores ${rec.agents[0]} ${rec.scores[0]}, ${rec.agents[1]} ${rec.scores[1]}`;
  $("prev").disabled = frame === 0;
  $("next").disabled = last;
}

$("prev").addEventListener("click", () => { frame = Math.max(0, frame - 1); render(); });
$("next").addEventListener("click", () => { frame = Math.min(rec.history.length, frame + 1); render(); });
let timer = null;
$("play").addEventListener("click", () => {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "Play"; return; }
  $("play").textContent = "Pause";
  timer = setInterval(() => {
    if (frame >= rec.history.length) { clearInterval(timer); timer = null; $("play").textContent = "Play"; return; }
    frame += 1; render();
  }, 700);
});
$("title").textContent = `${rec.agents[0]} (player 0, ●, goal ★) vs ${rec.agents[1]} (player 1, ○, goal ☆)`;
render();
