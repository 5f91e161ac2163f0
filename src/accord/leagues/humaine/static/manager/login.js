// The manager's login page.
import { api, say } from "./common/api.js";
const form = document.getElementById("login");
form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const body = Object.fromEntries(new FormData(form));
  try {
    await api("api/login", { method: "POST", body });
    const next = new URLSearchParams(location.search).get("next") || "index.html";
    location.href = /^[a-z]+\.html$/.test(next) ? next : "index.html";
  } catch (e) {
    say(document.getElementById("msg"), e.message, "error");
  }
});
