// Chat UI (Fig. 3): admin controls, transcript, countdown, ingredients purchased, results.
import { api, el, money, say } from "./common/api.js";
import { GOODS, PHASE_NAMES, messageNode, phaseClock, pinnedRound, poll } from "./round.js";

const $ = (id) => document.getElementById(id);
let current = null;
let shown = "";

const config = await api("api/config");
for (const name of config.agents) $("addressee").append(el("option", { value: name }, `to: ${name}`));
if (pinnedRound()) $("to-assistant").href = `assistant.html?round=${encodeURIComponent(pinnedRound())}`;

$("toggle-ingredients").addEventListener("click", () => {
  const t = $("purchased");
  t.classList.toggle("hidden");
  $("toggle-ingredients").textContent = t.classList.contains("hidden") ? "Show ingredients" : "Hide ingredients";
});

$("start-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const d = Object.fromEntries(new FormData(ev.target));
  const body = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Number(v)]));
  $("start").disabled = true;
  try {
    const r = await api("api/admin/start", { method: "POST", body });
    say($("start-msg"), "Round started.");
    if (pinnedRound()) location.search = `?round=${encodeURIComponent(r.roundId)}`;
  } catch (e) {
    say($("start-msg"), e.message, "error");
  } finally {
    $("start").disabled = false;
  }
});

$("end").addEventListener("click", async () => {
  try {
    const r = await api("api/admin/end", { method: "POST", body: { roundId: current ? current.roundId : null } });
    say($("start-msg"), `Ended; the round is now in phase ${r.phase}.`);
  } catch (e) {
    say($("start-msg"), e.message, "error");
  }
});

$("say-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const text = $("say-text").value.trim();
  if (!text) return;
  const choice = $("addressee").value;
  const body = { text, roundId: current ? current.roundId : null };
  if (choice !== "auto") body.addressee = choice;
  try {
    const r = await api("api/say", { method: "POST", body });
    $("say-text").value = "";
    if (r.reply && r.reply.permitted === false) {
      say($("say-msg"), `Blocked: ${r.reply.rationale}`, "error");
      $("say-msg").dataset.keep = "1";
    }
    else say($("say-msg"), "");
  } catch (e) {
    say($("say-msg"), e.message, "error");
  }
});

function renderResults(totals) {
  if (!totals) return;
  const rows = Object.entries(totals).map(([who, t]) => el("tr", { dataset: { party: who } },
    el("td", {}, who),
    el("td", { class: "num" }, `$${money(t.utility ? t.utility.value : 0)}`),
    el("td", { class: "muted" }, who === "Human" ? `spent $${money(t.cost)}` : `sold for $${money(t.revenue)}`)));
  $("results-body").replaceChildren(el("table", {},
    el("thead", {}, el("tr", {}, el("th", {}, "Party"), el("th", { class: "num" }, "Utility"), el("th", {}, ""))),
    el("tbody", {}, rows)));
  $("results-body").classList.remove("muted");
}

function render(state) {
  current = state;
  if (!state) return;
  $("phase").textContent = PHASE_NAMES[state.phase] || state.phase;
  $("countdown").textContent = state.phase === "warmup" ? phaseClock(state, "warmUp") : phaseClock(state, "round");
  $("round-id").textContent = `round ${state.roundId}`;
  $("send").disabled = state.phase !== "active";
  $("end").disabled = !["active", "post"].includes(state.phase);
  const sig = JSON.stringify(state.transcript.map((m) => [m.text, m.permitted]));
  if (sig !== shown) {
    shown = sig;
    const box = $("transcript");
    box.replaceChildren(...state.transcript.map(messageNode));
    if (sig.length && !$("say-msg").dataset.keep) say($("say-msg"), "");
    delete $("say-msg").dataset.keep;
    box.scrollTop = box.scrollHeight;
  }
  $("purchased").tBodies[0].replaceChildren(...GOODS.map((g) =>
    el("tr", { dataset: { good: g } }, el("td", {}, g), el("td", { class: "num" }, state.have[g] || 0))));
  $("budget-line").textContent = state.budget === null ? "" :
    `Budget $${money(state.budget)}, spent $${money(state.spent)}, left $${money(state.left)}`;
  const pending = state.pending || [];
  $("confirm-note").classList.toggle("hidden", !pending.length);
  $("confirm-note").textContent = pending.map((d) =>
    `${d.seller}'s deal for $${money(d.price)} awaits your Confirm in the Assistant.`).join(" ");
  renderResults(state.totals);
}

poll(render);
