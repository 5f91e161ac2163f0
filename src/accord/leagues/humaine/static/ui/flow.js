// A crowd study's pages (consent, instructions, done): text is set as text, never as HTML;
// buttons are disabled while their request runs.
import { api, say } from "./common/api.js";

const $ = (id) => document.getElementById(id);
const page = location.pathname.split("/").pop();

async function act(button, url, body, next) {
  button.disabled = true;
  try {
    await api(url, { method: "POST", body });
    location.assign(next);
  } catch (e) {
    say($("msg"), e.message, "error");
    button.disabled = false;
  }
}

let me;
try {
  me = await api("api/participant");
} catch (e) {
  say($("msg"), e.status === 401 ? "Open the link you were given to take part (…/join?key=…)." : e.message, "error");
  throw e;
}

if (page === "consent.html") {
  $("consent-text").textContent = me.consent.text;
  $("consent-text").classList.remove("muted");
  if (me.consented || me.declined) location.replace(me.declined ? "done.html" : "instructions.html");
  const body = (agree) => ({ agree, version: me.consent.version });
  $("agree").disabled = $("decline").disabled = false;
  $("agree").addEventListener("click", () => act($("agree"), "api/participant/consent", body(true), "instructions.html"));
  $("decline").addEventListener("click", () => act($("decline"), "api/participant/consent", body(false), "done.html"));
} else if (page === "instructions.html") {
  if (!me.consented) location.replace("consent.html");
  $("instructions-text").textContent = me.instructions;
  $("instructions-text").classList.remove("muted");
  $("start").disabled = false;
  $("start").addEventListener("click", () => act($("start"), "api/participant/instructions", {}, me.roundsPage || "chat.html"));
} else if (page === "done.html") {
  if (me.declined) {
    $("done-title").textContent = "You chose not to take part";
    $("done-text").textContent = "Nothing was recorded beyond that choice. You may close this page.";
  } else {
    if (!me.finished) {
      try { me = await api("api/participant/finish", { method: "POST", body: {} }); }
      catch (e) { say($("msg"), e.message, "error"); throw e; }
    }
    $("done-title").textContent = "You have finished the study";
    $("done-text").textContent = "Enter this completion code on the study platform.";
    $("code").textContent = me.code;
    if (me.returnUrl) {
      $("return").href = me.returnUrl;
      $("return").classList.remove("hidden");
    }
  }
}
