// Chat UI (Fig. 3): transcript, countdown, deals to confirm, ingredients purchased,
// results. The person's page: admin controls live on admin.html.
import { api, clock, el, money, say } from "./common/api.js";
import { GOODS, PHASE_NAMES, bundleText, messageNode, phaseClock, pinnedRound, poll } from "./round.js";

const $ = (id) => document.getElementById(id);
let current = null;
let shown = "";
let pendingShown = "";
let nextSayAt = 0; // R0: when the person may speak again (this page's clock, ms)

const config = await api("api/config").catch((e) => {
  say($("say-msg"), e.status === 401 ? "Open the link you were given to take part (…/join?key=…)." : e.message, "error");
  throw e;
});
const gap = Number(config.humanGap || 0);
if (gap > 0) $("r0-note").textContent = `Rule R0: wait ${gap} s between two of your messages.`;
for (const name of config.agents) $("addressee").append(el("option", { value: name }, `to: ${name}`));
if (pinnedRound()) $("to-assistant").href = `assistant.html?round=${encodeURIComponent(pinnedRound())}`;

$("toggle-ingredients").addEventListener("click", () => {
  const t = $("purchased");
  t.classList.toggle("hidden");
  $("toggle-ingredients").textContent = t.classList.contains("hidden") ? "Show ingredients" : "Hide ingredients";
});

$("say-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const text = $("say-text").value.trim();
  if (!text) return;
  const choice = $("addressee").value;
  const body = { text, roundId: current ? current.roundId : null };
  if (choice !== "auto") body.addressee = choice;
  const wait = (nextSayAt - Date.now()) / 1000;
  if (wait > 0) { // tell the person before the message would be refused (R0)
    say($("say-msg"), `Please wait ${wait.toFixed(1)} s: rule R0 allows one message every ${gap} s.`, "error");
    return;
  }
  try {
    const r = await api("api/say", { method: "POST", body });
    $("say-text").value = "";
    if (r.reply && r.reply.permitted) nextSayAt = Date.now() + gap * 1000;
    if (r.reply && r.reply.permitted === false) {
      say($("say-msg"), r.notice || "Not sent: the rules of the game did not allow this message.", "error");
      $("say-msg").dataset.keep = "1";
    }
    else say($("say-msg"), "");
  } catch (e) {
    say($("say-msg"), e.message, "error");
  }
});

// A seller accepted: the person confirms or declines right here (or in the assistant).
async function decide(deal, confirm) {
  try {
    const r = await api("api/decide", { method: "POST", body: { roundId: current.roundId, deal: deal.id, confirm } });
    say($("say-msg"), confirm ? `Confirmed: you bought from ${r.deal.seller}.` :
      `Declined: nothing bought from ${r.deal.seller}; your money is back.`, confirm ? "ok" : "error");
    $("say-msg").dataset.keep = "1";
  } catch (e) {
    say($("say-msg"), e.message, "error");
  }
}

function renderPending(pending) {
  const sig = JSON.stringify(pending.map((d) => d.id));
  if (sig !== pendingShown) {
    pendingShown = sig;
    $("confirm").classList.toggle("hidden", !pending.length);
    $("confirm-list").replaceChildren(...pending.map((d) =>
      el("div", { class: "pending-deal", dataset: { deal: d.id, seller: d.seller } },
        el("span", { class: "what" }, `${d.seller} sells you ${bundleText(d.quantity)} for $${money(d.price)}`),
        el("span", { class: "buttons" },
          el("button", { type: "button", class: "confirm", onclick: () => decide(d, true) }, "Confirm"),
          el("button", { type: "button", class: "danger decline", onclick: () => decide(d, false) }, "Decline")),
        el("span", { class: "left muted" }))));
  }
  for (const d of pending) {
    const left = $("confirm-list").querySelector(`[data-deal="${d.id}"] .left`);
    if (left) left.textContent = `Declined for you in ${clock(d.secondsLeft)} unless you confirm ` +
      `(you have ${config.confirmWithin} s for each deal).`;
  }
}

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
  $("send").disabled = state.phase !== "active" || !state.speaks;
  const sig = JSON.stringify(state.transcript.map((m) => [m.text, m.permitted]));
  if (sig !== shown) {
    shown = sig;
    const box = $("transcript");
    // follow new lines only when the person is at the end: reading earlier lines, they stay
    const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 24;
    const top = box.scrollTop;
    box.replaceChildren(...state.transcript.map(messageNode));
    if (sig.length && !$("say-msg").dataset.keep) say($("say-msg"), "");
    delete $("say-msg").dataset.keep;
    box.scrollTop = atEnd ? box.scrollHeight : top;
  }
  $("purchased").tBodies[0].replaceChildren(...GOODS.map((g) =>
    el("tr", { dataset: { good: g } }, el("td", {}, g), el("td", { class: "num" }, state.have[g] || 0))));
  $("budget-line").textContent = state.budget === null ? "" :
    `Budget $${money(state.budget)}, spent $${money(state.spent)}, left $${money(state.left)}`;
  renderPending(state.pending || []);
  const open = (state.unauthenticated || []).filter((n) => n !== "Human");
  $("auth-note").classList.toggle("hidden", !open.length);
  $("auth-note").textContent = open.length ?
    `${open.join(" and ")} ${open.length > 1 ? "are" : "is"} unauthenticated: admitted by the operator without a secret.` : "";
  renderResults(state.totals);
}

poll(render);

// A crowd study (the server's flow): once its rounds are over, the way to the completion code.
async function studyEnd() {
  try {
    const me = await api("api/participant");
    if (!me.flow) return; // no study flow on this server
    if (me.canFinish || me.finished) {
      $("finish").classList.remove("hidden");
      return;
    }
  } catch (e) {
    if (e.status === 404) return; // no study flow on this server
  }
  setTimeout(studyEnd, 3000);
}
studyEnd();
