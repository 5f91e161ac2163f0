// Shared by the chat UI and the assistant UI: which round, polling its state, display bits.
import { api, clock, el, money } from "./common/api.js";

export const GOODS = ["egg", "flour", "sugar", "milk", "chocolate", "vanilla", "blueberry"];
export const UNITS = {
  egg: "each", flour: "cup", sugar: "cup", milk: "cup",
  chocolate: "ounce", vanilla: "teaspoon", blueberry: "packet",
};
export const PHASE_NAMES = {
  setup: "waiting for a round", warmup: "warm-up", active: "negotiation",
  post: "post-round: allocate your goods", done: "round over",
  failed: "round failed: stopped by the orchestrator",
};

// ?round=<roundId> pins a round; without it the pages follow the latest round.
export function pinnedRound() {
  return new URLSearchParams(location.search).get("round");
}

export function stateUrl() {
  const r = pinnedRound();
  return r ? `api/state?round=${encodeURIComponent(r)}` : "api/state";
}

// Calls render(state) every `ms` milliseconds (state is null while there is no round).
export function poll(render, ms = 500) {
  let busy = false;
  async function tick() {
    if (busy) return;
    busy = true;
    try {
      render(await api(stateUrl()));
    } catch (e) {
      if (e.status === 404 || e.status === 401) render(null); else console.warn(e);
    } finally {
      busy = false;
    }
  }
  tick();
  return setInterval(tick, ms);
}

export function bundleText(quantity) {
  return Object.entries(quantity || {}).filter(([, n]) => n)
    .map(([g, n]) => `${n} ${g}`).join(", ");
}

// an agent's text may hold SSML tags (immersive mode): the person reads it without them
export function plainText(text) {
  return String(text || "").replace(/<[^<>]{0,400}>/g, " ").replace(/\s+/g, " ")
    .replace(/\s+([,.;:!?])/g, "$1").trim();
}

export function messageNode(m) {
  const who = m.speaker || "?";
  if (m.permitted === false && m.speaker !== "Human") { // never shown as if it were said
    return el("div", { class: "msg-line notice blocked" }, el("span", { class: "blocked-why" }, m.notice || ""));
  }
  const cls = `msg-line from-${who.toLowerCase()}${m.permitted === false ? " blocked" : ""}`;
  return el("div", { class: cls },
    el("span", { class: "who" }, who, m.addressee ? el("span", { class: "to" }, ` to ${m.addressee}`) : null,
      m.authenticated === false ? el("span", { class: "unauth", title: "admitted without a secret" }, " (unauthenticated)") : null),
    el("span", { class: "text" }, m.speaker === "Human" ? m.text : plainText(m.text)),
    m.bid && m.bid.type && m.speaker !== "Human"
      ? el("span", { class: "bid" }, `${m.bid.type}: ${bundleText(m.bid.quantity)}` +
          (m.bid.price ? ` for $${money(m.bid.price.value)}` : ""))
      : null,
    m.permitted === false ? el("span", { class: "blocked-why" }, m.notice || "Not sent.") : null);
}

export function phaseClock(state, which) {
  return clock(state && state.remaining ? state.remaining[which] : null);
}
