// The study's done page.
import { participant } from "./study.js";
const $ = (id) => document.getElementById(id);
try {
  const me = await participant.me();
  $("pid").textContent = me.pid;
  if (me.status === "declined") {
    $("headline").textContent = "You chose not to take part";
    $("message").textContent = "Nothing more was recorded. You may close this page.";
  } else if (me.status === "withdrawn") {
    $("headline").textContent = "You left the study";
    $("message").textContent = "What you did until then is recorded. You may close this page.";
  } else if (me.status === "done") {
    $("message").textContent = `You finished all ${me.rounds} round(s) of ${me.title}. You may close this page.`;
  } else {
    $("message").textContent = "You have not finished yet.";
  }
} catch (e) {
  $("error").textContent = e.message;
}
