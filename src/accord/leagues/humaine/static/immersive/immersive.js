// The immersive page: the sellers as avatars that speak (server-synthesised audio, one
// message at a time, in the order the orchestrator permitted them) and gesture; the
// person talks (push-to-talk), the server transcribes it, the page shows what was heard,
// and the person sends it (as heard or corrected) or takes it back: only then does it go
// out as the Human's message, exactly as a typed one. Everything is served by this UI server: no external
// resource is ever loaded.
import { api, clock, el, money, say } from "../common/api.js";
import { Avatar } from "./avatars.js";
import { recordTake } from "./mic.js";

const $ = (id) => document.getElementById(id);
const PHASES = { setup: "waiting for a round", warmup: "warm-up", active: "negotiation",
  post: "post-round: allocate your goods (Assistant page)", done: "round over", failed: "round failed" };
const strip = (t) => String(t || "").replace(/<[^<>]*>/g, " ").replace(/\s+/g, " ").trim();

// what the page did, for whoever watches (tests read it too)
const journal = { played: [], skipped: [], heard: [], takes: [], answered: [], errors: [] };
window.__immersive = journal;

let config;
try {
  config = await api("../api/immersive/config");
} catch (e) {
  say($("talk-msg"), e.status === 401 ? "Open the link you were given to take part (…/join?key=…)." : e.message, "error");
  throw e;
}
const avatars = config.agents.slice(0, 2).map((name, i) => new Avatar($(`seat-${i}`), name, i));
const byName = Object.fromEntries(avatars.map((a) => [a.name, a]));
$("listen-mode").textContent = `Microphone: ${config.listenMode}. Say a seller's name, or click the one you talk to.`;
if (config.speech) say($("talk-msg"), `Speech is off on this server: ${config.speech}`, "error");
const gap = Number(config.humanGap || 0);
if (gap > 0) $("r0-note").textContent = `Rule R0: wait ${gap} s between two of your messages.`;

// ---- whom the person addresses: the name said, else the avatar clicked or looked at
let focus = { name: "", by: "click" };
function setFocus(name, by) {
  focus = { name, by };
  for (const a of avatars) {
    a.seat.classList.toggle("focused", a.name === name);
    if (a.name === name) a.cue.textContent = by === "click" ? "you chose me (click)" : "you look at me";
    else if (!a.seat.classList.contains("addressed")) a.cue.textContent = "";
  }
}
for (const a of avatars) a.seat.addEventListener("click", () => setFocus(a.name, "click"));

// ---- speech out: one message at a time, in the queue's order
const audio = new AudioContext();
function soundButton() {
  $("sound").classList.toggle("hidden", audio.state === "running");
}
$("sound").addEventListener("click", async () => { await audio.resume(); soundButton(); });
audio.addEventListener("statechange", soundButton);
soundButton();

async function play(avatar, item) {
  // the speech through an analyser: the mouth follows its loudness
  const data = await (await fetch(item.audio, { credentials: "same-origin" })).arrayBuffer();
  const buffer = await audio.decodeAudioData(data);
  const src = audio.createBufferSource();
  src.buffer = buffer;
  const analyser = audio.createAnalyser();
  analyser.fftSize = 1024;
  src.connect(analyser);
  analyser.connect(audio.destination);
  const frame = new Float32Array(analyser.fftSize);
  let running = true, peak = 0;
  const ended = new Promise((resolve) => { src.onended = resolve; });
  const t0 = audio.currentTime;
  src.start();
  (function mouth() {
    if (!running) return;
    analyser.getFloatTimeDomainData(frame);
    let sq = 0;
    for (const x of frame) sq += x * x;
    const level = Math.min(1, Math.sqrt(sq / frame.length) * 5);
    peak = Math.max(peak, level);
    avatar.mouthOpen(level);
    requestAnimationFrame(mouth);
  })();
  await ended;
  running = false;
  return { audioSeconds: buffer.duration, clockSeconds: audio.currentTime - t0, peakMouth: peak };
}

async function mime(avatar, text) {
  // no speech here: move the mouth by timing (about 14 characters a second)
  const seconds = Math.max(1.2, text.length / 14);
  const t0 = performance.now();
  let peak = 0;
  while (performance.now() - t0 < seconds * 1000) {
    const level = 0.5 + 0.5 * Math.sin((performance.now() - t0) / 60);
    peak = Math.max(peak, level);
    avatar.mouthOpen(level);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { audioSeconds: null, clockSeconds: seconds, peakMouth: peak };
}

const played = new Set();
let items = [];
let speaking = false;
let firstQueue = true;

async function speakNext() {
  if (speaking) return;
  const item = items.find((i) => !played.has(i.id));
  if (!item) return;
  speaking = true;
  played.add(item.id);
  const avatar = byName[item.speaker] || avatars[0];
  const start = performance.now();
  avatar.begin(item.text, item.gestures);
  const entry = { id: item.id, speaker: item.speaker, text: item.text, gestures: item.gestures,
    seconds: item.seconds, start, end: null, measured: null, peakMouth: 0, gesturesShown: [] };
  try {
    entry.gesturesShown = item.gestures.filter((g) => avatar.svg.classList.contains(`g-${g}`));
    if (audio.state !== "running") await audio.resume().catch(() => {});
    const r = item.audio && audio.state === "running" ? await play(avatar, item) : await mime(avatar, item.text);
    entry.measured = r.clockSeconds;
    entry.audioSeconds = r.audioSeconds;
    entry.peakMouth = r.peakMouth;
    const shown = performance.now() - start;
    if (item.gestures.length && shown < 1200) await new Promise((ok) => setTimeout(ok, 1200 - shown));
  } catch (e) {
    journal.errors.push(String(e));
    console.warn(e);
  } finally {
    avatar.done();
    entry.end = performance.now();
    journal.played.push(entry);
    $("history").querySelector(`[data-item="${item.id}"]`)?.classList.add("spoken");
    speaking = false;
    speakNext();
  }
}

// ---- the round: state and queue polling
let current = null;
let nextSayAt = 0;
let recording = null; // the take in progress

function renderDeals(state) {
  const pending = state.pending || [];
  $("confirm-list").replaceChildren(...(pending.length ? pending.map((d) =>
    el("div", { class: "pending-deal", dataset: { deal: d.id, seller: d.seller } },
      el("span", {}, `${d.seller} sells you ${Object.entries(d.quantity).map(([g, n]) => `${n} ${g}`).join(", ")} for $${money(d.price)}`),
      el("span", {},
        el("button", { type: "button", class: "confirm", onclick: () => decide(d, true) }, "Confirm"), " ",
        el("button", { type: "button", class: "danger decline", onclick: () => decide(d, false) }, "Decline")),
      el("span", { class: "muted" }, `declined for you in ${clock(d.secondsLeft)} unless you confirm`)))
    : (state.deals || []).map((d) => el("div", { class: "deal", dataset: { seller: d.seller } },
      `Bought from ${d.seller} for $${money(d.price)}`))));
  $("budget-line").textContent = state.budget === null ? "" :
    `Budget $${money(state.budget)}, spent $${money(state.spent)}, left $${money(state.left)}`;
}

async function decide(deal, confirm) {
  try {
    await api("../api/decide", { method: "POST", body: { roundId: current.roundId, deal: deal.id, confirm } });
  } catch (e) {
    say($("talk-msg"), e.message, "error");
  }
}

function renderState(state) {
  current = state;
  if (!state) return;
  $("phase").textContent = PHASES[state.phase] || state.phase;
  $("countdown").textContent = clock(state.remaining ? state.remaining[state.phase === "warmup" ? "warmUp" : "round"] : null);
  $("talk-btn").disabled = !(state.phase === "active" && state.speaks) && !recording;
  // who the person addresses: the addressee of their latest message
  const mine = state.transcript.filter((m) => m.speaker === "Human");
  const last = mine.length ? mine[mine.length - 1] : null;
  for (const a of avatars) {
    const on = !!last && last.addressee === a.name;
    a.seat.classList.toggle("addressed", on);
    if (on) a.cue.textContent = "you are talking to me";
    else if (!a.seat.classList.contains("focused")) a.cue.textContent = "";
  }
  // what was said: permitted messages only (a blocked one is neither shown nor spoken)
  const lines = state.transcript.map((m, i) => [m, i]).filter(([m]) => m.permitted !== false);
  $("history").replaceChildren(...lines.map(([m, i]) => el("li",
    { dataset: { item: i, speaker: m.speaker }, class: played.has(i) ? "spoken" : "" },
    el("span", { class: "who" }, m.speaker), m.addressee ? ` to ${m.addressee}` : "", ": ",
    m.speaker === "Human" ? m.text : strip(m.text))));
  renderDeals(state);
}

async function tick() {
  try {
    current = await api(current && current.roundId ? `../api/state?round=${encodeURIComponent(current.roundId)}` : "../api/state");
    renderState(current);
    if (!current) return;
    const q = await api(`../api/immersive/queue?round=${encodeURIComponent(current.roundId)}`);
    items = q.items;
    if (firstQueue) { // what was said before the page opened is listed, not spoken again
      firstQueue = false;
      for (const i of items) { played.add(i.id); journal.skipped.push(i.id); }
    }
    speakNext();
  } catch (e) {
    if (e.status !== 401 && e.status !== 404) console.warn(e);
  }
}
// a newer round (started by the operator) replaces the one shown
setInterval(async () => {
  try {
    const latest = await api("../api/state");
    if (latest && current && latest.roundId !== current.roundId) { current = null; firstQueue = false; }
  } catch { /* the next tick says */ }
}, 2000);
setInterval(tick, 400);
tick();

// ---- speech in: push-to-talk; a take is shown, and sent only when the buyer sends it
let pendingTake = null;

function showTake(body) {
  pendingTake = body.take;
  $("take-text").value = body.text;
  $("take-to").replaceChildren(...["", ...config.agents].map((n) =>
    el("option", { value: n }, n || "both sellers")));
  $("take-to").value = body.addressee || "";
  $("take").classList.remove("hidden");
  $("take-text").focus();
}

function closeTake() {
  pendingTake = null;
  $("take").classList.add("hidden");
}

async function answerTake(path, extra) {
  const take = pendingTake;
  closeTake();
  try {
    const body = await api(`../api/immersive/${path}`, { method: "POST",
      body: { roundId: current ? current.roundId : null, take, ...extra } });
    journal.answered.push({ path, ...body, at: performance.now() });
    if (path === "discard") { say($("talk-msg"), "Taken back: nothing was sent."); return; }
    $("heard").textContent = `You said: “${body.text}”`;
    $("heard").dataset.text = body.text;
    $("rule").textContent = `to ${body.addressee || "both sellers"}: ${body.rule}`;
    if (body.permitted) { nextSayAt = Date.now() + gap * 1000; say($("talk-msg"), ""); }
    if (body.permitted === false) say($("talk-msg"), body.notice || "Not sent: the rules of the game did not allow this message.", "error");
  } catch (e) {
    journal.errors.push(String(e));
    say($("talk-msg"), e.message, "error");
  }
}

$("take").addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (!pendingTake) return;
  const wait = (nextSayAt - Date.now()) / 1000;
  if (wait > 0) {
    say($("talk-msg"), `Please wait ${wait.toFixed(1)} s: one message every ${gap} s.`, "error");
    return;
  }
  const text = $("take-text").value.trim();
  if (!text) { say($("talk-msg"), "Type what you meant, or take it back.", "error"); return; }
  answerTake("send", { text, addressee: $("take-to").value });
});
$("take-back").addEventListener("click", () => { if (pendingTake) answerTake("discard", {}); });

$("talk-btn").addEventListener("click", async () => {
  if (recording) { recording.stop(); return; }
  const wait = (nextSayAt - Date.now()) / 1000;
  if (wait > 0) {
    say($("talk-msg"), `Please wait ${wait.toFixed(1)} s: rule R0 allows one message every ${gap} s.`, "error");
    return;
  }
  try {
    recording = await recordTake({ onLevel: (v) => { $("level-bar").style.width = `${Math.round(v * 100)}%`; } });
  } catch (e) {
    say($("talk-msg"), `No microphone: ${e.message}`, "error");
    return;
  }
  $("talk-btn").classList.add("recording");
  $("talk-btn").textContent = "Listening… click to stop";
  say($("talk-msg"), "");
  const take = await recording.done;
  journal.takes.push({ seconds: take.seconds, rate: take.rate, heardSpeech: take.heardSpeech, at: performance.now() });
  recording = null;
  $("talk-btn").classList.remove("recording");
  $("talk-btn").textContent = "Click to talk";
  $("heard").textContent = "…";
  const params = new URLSearchParams({ roundId: current ? current.roundId : "", focus: focus.name, focusBy: focus.by });
  try {
    const r = await fetch(`../api/immersive/listen?${params}`, {
      method: "POST", body: take.wav, headers: { "Content-Type": "audio/wav" }, credentials: "same-origin" });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    journal.heard.push({ ...body, takeSeconds: take.seconds, captureRate: take.rate, at: performance.now() });
    $("heard").textContent = body.text ? `Heard: “${body.text}”` : "(nothing recognised)";
    $("heard").dataset.text = body.text || "";
    $("rule").textContent = body.text ? `to ${body.addressee || "both sellers"}: ${body.rule}` : (body.why || "");
    $("rule").dataset.addressee = body.addressee || "";
    if (body.pending) showTake(body); // nothing is sent until the buyer sends it
    if (body.permitted) nextSayAt = Date.now() + gap * 1000;
    if (body.permitted === false) say($("talk-msg"), body.notice || "Not sent: the rules of the game did not allow this message.", "error");
  } catch (e) {
    journal.errors.push(String(e));
    say($("talk-msg"), e.message, "error");
    $("heard").textContent = "";
  }
});

// ---- head pose (where OpenCV runs on the server and a camera is here)
if (config.headPose === null && navigator.mediaDevices) {
  $("cam-row").classList.remove("hidden");
  let timer = null, stream = null;
  $("cam").addEventListener("change", async () => {
    if (!$("cam").checked) {
      clearInterval(timer);
      if (stream) for (const t of stream.getTracks()) t.stop();
      $("cam-msg").textContent = "";
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { width: 320, height: 240 } });
    } catch (e) {
      $("cam-msg").textContent = `No camera: ${e.message}`;
      $("cam").checked = false;
      return;
    }
    const video = el("video", { muted: true, playsinline: true });
    video.srcObject = stream;
    await video.play();
    const canvas = el("canvas", { width: 320, height: 240 });
    timer = setInterval(() => {
      canvas.getContext("2d").drawImage(video, 0, 0, 320, 240);
      canvas.toBlob(async (blob) => {
        try {
          const r = await fetch("../api/immersive/look", { method: "POST", body: blob, credentials: "same-origin" });
          const pose = await r.json();
          $("cam-msg").textContent = `head: ${pose.yaw}`;
          if (pose.focus) setFocus(pose.focus, "head pose");
        } catch (e) { $("cam-msg").textContent = String(e); }
      }, "image/jpeg", 0.8);
    }, 800);
  });
}
