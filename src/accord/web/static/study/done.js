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
  } else if (me.status === "done" && me.released) {
    $("headline").textContent = "Thank you for waiting";
    $("message").textContent = `${me.released} You are done; nothing more is asked of you.`;
  } else if (me.status === "done") {
    $("message").textContent = `You finished all ${me.rounds} round(s) of ${me.title}. You may close this page.`;
  } else {
    $("message").textContent = "You have not finished yet.";
  }
  if (me.completion_code) {
    $("code").textContent = me.completion_code;
    $("completion").hidden = false;
  }
  if (me.return_url && /^https?:\/\//.test(me.return_url)) {
    $("return").href = me.return_url;
    $("back").hidden = false;
  }
} catch (e) {
  $("error").textContent = e.message;
}
