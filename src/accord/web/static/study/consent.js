// The study's consent page.
import { participant, go } from "./study.js";
const $ = (id) => document.getElementById(id);
let me;
async function answer(agree) {
  try {
    me = await participant.consent(agree, me.consent.version);
    go(me.next);
  } catch (e) {
    $("error").textContent = e.message;
  }
}
try {
  me = await participant.me();
  if (me.status !== "opened") go(me.next);
  $("study").textContent = me.title;
  $("title").textContent = me.consent.title;
  for (const para of me.consent.text.split(/\n\s*\n/)) {
    const p = document.createElement("p");
    p.textContent = para;
    $("text").append(p);
  }
  $("agree").disabled = $("decline").disabled = false;
  $("agree").onclick = () => answer(true);
  $("decline").onclick = () => answer(false);
} catch (e) {
  $("error").textContent = e.message;
}
