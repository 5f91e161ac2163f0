// The negotiation page of a GENIUS study (accord.web): state from /api/genius, updates by
// the study's live channel, a heartbeat every few seconds, actions as JSON.
import { go, participant } from "../study/study.js";
import { ApiError, api as call, busy, el, fill } from "../accord/safe.js";

// API paths are relative to the app's root (this page is /genius/negotiate.html).
const api = (path, init) => call(`../${path}`, init);

const $ = (id) => document.getElementById(id);
let state = null;
let built = false;
let secondsLeft = 0;
let timer = null;

// A refusal that ends the page (not a participant of this game): the board goes away.
function showError(text) {
  $("error").textContent = text;
  $("board").hidden = true;
  $("status").textContent = "";
  if (timer) clearInterval(timer);
  timer = null;
}

// The server cannot be reached (restarting, network): say so, keep the board and the
// countdown, and clear the line at the next answer.
let offline = false;
function showOffline(text) {
  offline = true;
  $("error").textContent = text;
}
function backOnline() {
  if (!offline) return;
  offline = false;
  $("error").textContent = "";
}

function notice(text) {
  const el = $("notice");
  el.hidden = !text;
  el.textContent = text || "";
}

const fmt = (x) => (Math.round(x * 10) / 10).toString();

function issueScore(k, value) {
  const issue = state.issues[k];
  if (value === null || value === undefined || value === "") return state.open_issue_values[k];
  return issue.utilities[issue.values.indexOf(value)];
}

function scoreOf(values) {
  // running agreement with `values` written over it, at the current period
  let total = 0;
  state.issues.forEach((issue, k) => {
    const v = values[issue.name] ?? state.agreement[issue.name];
    total += issueScore(k, v);
  });
  return total + state.period * state.time_effect;
}

function chosen() {
  const out = {};
  document.querySelectorAll("#builder select").forEach((sel) => {
    if (sel.value !== "") out[sel.name] = sel.value;
  });
  return out;
}

function build() {
  const box = $("builder");
  box.replaceChildren();
  state.issues.forEach((issue) => {
    const label = document.createElement("label");
    label.textContent = issue.name + " ";
    const sel = document.createElement("select");
    sel.name = issue.name;
    sel.setAttribute("aria-label", issue.name);
    const open = new Option("(leave open)", "");
    sel.add(open);
    issue.values.forEach((v, j) => sel.add(new Option(`${v} (${fmt(issue.utilities[j])})`, v)));
    sel.addEventListener("change", updatePreview);
    label.appendChild(sel);
    box.appendChild(label);
  });
  for (const [id, texts] of [["comment", state.comments], ["threat", state.threats]]) {
    const sel = $(id);
    sel.replaceChildren();
    texts.forEach((t, k) => sel.add(new Option(t, String(k))));
  }
  built = true;
}

function updatePreview() {
  const values = chosen();
  $("preview").textContent = Object.keys(values).length ? fmt(scoreOf(values)) : "–";
}

function offerText(values) {
  return Object.entries(values).map(([k, v]) => `${k}: ${v}`).join("; ");
}

function render() {
  const s = state;
  $("board").hidden = false;
  $("role").textContent = s.side_name;
  $("type").textContent = s.type;
  $("opponent").textContent = s.opponent;
  $("turn").textContent = String(Math.min(s.turn + 1, s.turns));
  $("turns").textContent = String(s.turns);
  secondsLeft = s.seconds_left_in_turn;
  $("clock").textContent = String(Math.ceil(secondsLeft));
  $("status").textContent = s.status;
  if (!built) build();
  updatePreview();
  const agreement = $("agreement");
  agreement.replaceChildren();
  s.issues.forEach((issue) => {
    const row = agreement.insertRow();
    row.insertCell().textContent = issue.name;
    row.insertCell().textContent = s.agreement[issue.name] ?? "(open)";
  });
  $("agreement-utility").textContent = fmt(s.agreement_utility);
  $("sq").textContent = fmt(s.status_quo + s.turns * s.time_effect);
  $("opt-value").textContent = fmt(s.opt_out + s.period * s.time_effect);
  const incoming = s.offers.filter((o) => !o.mine);
  const mine = s.offers.filter((o) => o.mine);
  const box = $("incoming");
  fill(box, incoming.length ? [] : el("p", { class: "muted" }, "No offers yet."));
  for (const o of incoming.slice().reverse()) {
    const div = document.createElement("div");
    div.className = "offer";
    div.dataset.offer = String(o.id);
    fill(div, el("div", {}, `#${o.id} (turn ${o.turn + 1}): ${offerText(o.values)}`),
      el("div", { class: "muted" }, `your score if agreed now: ${fmt(scoreOf(o.values))}`));
    if (o.answer === null && s.status === "running") {
      for (const kind of ["accept", "reject"]) {
        const b = document.createElement("button");
        b.textContent = kind === "accept" ? "Accept" : "Reject";
        b.className = kind;
        b.addEventListener("click", () => send({ kind, offer: o.id }, b));
        div.appendChild(b);
      }
    } else if (o.answer) {
      const a = document.createElement("b");
      a.textContent = o.answer === "accept" ? "accepted" : "rejected";
      div.appendChild(a);
    }
    box.appendChild(div);
  }
  const mineBox = $("mine");
  fill(mineBox, mine.length ? [] : el("p", { class: "muted" }, "None yet."));
  for (const o of mine.slice().reverse()) {
    const div = document.createElement("div");
    div.className = "offer";
    div.textContent = `#${o.id}: ${offerText(o.values)} — ${o.answer ?? "waiting"}`;
    mineBox.appendChild(div);
  }
  const msgs = $("messages");
  msgs.replaceChildren();
  for (const m of s.messages) {
    const li = document.createElement("li");
    li.textContent = `${m.mine ? "You" : "Other side"} (${m.kind}): ${m.text}`;
    msgs.appendChild(li);
  }
  const ended = s.status !== "running";
  for (const id of ["send-offer", "send-comment", "send-threat", "opt-out", "leave"]) {
    $(id).disabled = ended;
  }
  if (s.result) {
    const r = s.result;
    const what = { agreement: "Full agreement", opt_out: "Opt-out", deadline: "Deadline" }[r.reason];
    $("result").hidden = false;
    $("result-text").textContent = `${what} at turn ${r.turn}. Your final score: ${fmt(r.utility)}.`;
  } else if (s.status === "abandoned" || s.status === "left") {
    $("result").hidden = false;
    $("result-text").textContent = "The negotiation was abandoned: a participant left.";
  }
}

async function refresh() {
  let body;
  try {
    body = await api("api/genius/state");
  } catch (e) {
    if (e instanceof ApiError && (e.status === 0 || e.status >= 500)) return showOffline(e.message);
    if (e.status === 409) {
      const me = await participant.me();
      if (me.status !== "consented") return go(me.next);
    }
    return showError(e.message);
  }
  backOnline();
  show(body);
}

function show(body) {
  if (body.status === "released") return go(body.next);
  if (body.status === "waiting") {
    $("status").textContent = body.message;
    return;
  }
  if (olderThanShown(body)) return;
  state = body;
  render();
}

// Answers may overtake each other (the heartbeat's refresh and the live channel's push):
// a state never goes back (turns, offers, answers and messages only grow; a result stays),
// so one behind the state shown in any of these is old and dropped.
function progress(s) {
  return [s.turn, s.offers.length, s.offers.filter((o) => o.answer !== null).length,
    s.messages.length, s.result ? 1 : 0];
}

function olderThanShown(body) {
  if (!state || !body.offers) return false;
  const was = progress(state);
  return progress(body).some((x, i) => x < was[i]);
}

// One act of the person: the button stays disabled until the answer (a double click is
// one act), and a refusal is shown with its reason.
async function send(action, button) {
  await busy(button, async () => {
    try {
      await api("api/genius/action", { method: "POST", body: action });
      notice("");
    } catch (e) {
      notice(e.message);
    }
    await refresh();
  });
}

$("send-offer").addEventListener("click", () => {
  const values = chosen();
  if (!Object.keys(values).length) return notice("Choose a value for at least one issue.");
  send({ kind: "offer", values }, $("send-offer"));
});
$("send-comment").addEventListener("click", () => send({ kind: "comment", index: Number($("comment").value) }, $("send-comment")));
$("send-threat").addEventListener("click", () => send({ kind: "threat", index: Number($("threat").value) }, $("send-threat")));
$("opt-out").addEventListener("click", () => {
  if (confirm("Opt out? Both sides get their opt-out score and the negotiation ends.")) send({ kind: "opt_out" }, $("opt-out"));
});
$("leave").addEventListener("click", async () => {
  if (!confirm("Leave the study? The negotiation will be recorded as abandoned.")) return;
  await api("api/genius/leave", { method: "POST" });
  const me = await participant.me();
  go(me.next);
});
$("continue").addEventListener("click", async () => {
  const me = await participant.me();
  go(me.next);
});

async function main() {
  await refresh();
  // the negotiation comes live after every committed change (the shared play routes'
  // stream, which ends once the negotiation is over)
  const live = new EventSource("../api/genius/live");
  live.addEventListener("state", (e) => {
    const body = JSON.parse(e.data);
    backOnline();
    show(body);
    if (["ended", "abandoned", "left", "released"].includes(body.status)) live.close();
  });
  setInterval(refresh, 3000); // heartbeat: the server counts a silent page as gone
  timer = setInterval(() => {
    secondsLeft = Math.max(0, secondsLeft - 0.25);
    $("clock").textContent = String(Math.ceil(secondsLeft));
  }, 250);
}
main();
