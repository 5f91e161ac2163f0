// The study's instructions page: read before the first round (text shown as text).
import { api, participant, go } from "./study.js";
import { busy, el, fill } from "../accord/safe.js";

const $ = (id) => document.getElementById(id);
try {
  const me = await participant.me();
  if (me.next !== "/study/instructions.html") go(me.next);
  $("study").textContent = me.title;
  fill($("text"), me.instructions.split(/\n\s*\n/).map((para) => el("p", {}, para)));
  $("begin").disabled = false;
  $("begin").addEventListener("click", () => busy($("begin"), async () => {
    try {
      const view = await api("api/participant/instructions", { method: "POST" });
      go(view.next);
    } catch (e) {
      $("error").textContent = e.message;
    }
  }));
} catch (e) {
  $("error").textContent = e.message;
}
