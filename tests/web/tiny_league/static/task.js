// The tiny league's task page.
import { api, participant, go } from "./study/study.js";
const $ = (id) => document.getElementById(id);
let me = await participant.me();
function show(view) {
  me = view;
  $("round").textContent = view.round + 1;
  $("rounds").textContent = view.rounds;
}
show(me);
const channel = participant.live({
  participant: (view) => (me = view),
  reply: (r) => {
    $("reply").textContent = r.accepted ? `Accepted: you keep ${100 - r.give}.` : "Rejected: nobody gets anything.";
    $("reply").dataset.accepted = r.accepted;
    $("next").classList.remove("hidden");
  },
});
$("offer").onclick = async () => {
  try {
    $("offer").disabled = true;
    await api("api/ultimatum/offer", { method: "POST", body: { give: Number($("give").value) } });
  } catch (e) {
    $("error").textContent = e.message;
  }
};
// Offers open once the live channel is: the agent's reply comes through it.
channel.addEventListener("open", () => ($("offer").disabled = false), { once: true });
$("next").onclick = async () => {
  const view = await participant.me();
  if (view.status !== "consented") return go(view.next);
  show(view);
  $("reply").textContent = "";
  delete $("reply").dataset.accepted;
  $("next").classList.add("hidden");
  $("offer").disabled = false;
};
