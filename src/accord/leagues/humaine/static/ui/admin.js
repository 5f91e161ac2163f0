// Admin page: start a round, end the current phase (not on the buyer's pages).
import { api, say } from "./common/api.js";
import { PHASE_NAMES, poll } from "./round.js";

const $ = (id) => document.getElementById(id);
let current = null;

$("start-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const d = Object.fromEntries(new FormData(ev.target));
  const body = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Number(v)]));
  $("start").disabled = true;
  try {
    const r = await api("api/admin/start", { method: "POST", body });
    say($("start-msg"), `Round started: ${r.roundId}.`);
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

poll((state) => {
  current = state;
  $("phase").textContent = state ? (PHASE_NAMES[state.phase] || state.phase) : PHASE_NAMES.setup;
  $("round-id").textContent = state ? `round ${state.roundId}` : "";
  $("end").disabled = !state || !["active", "post"].includes(state.phase);
});
