// Header of the manager pages, and the admin check.
import { api, el } from "./common/api.js";

const PAGES = [
  ["index.html", "Contestants"],
  ["schedule.html", "Schedule"],
  ["leaderboard.html", "Leaderboard"],
];

export async function header(current, { needAdmin = true } = {}) {
  const me = await api("api/me");
  if (needAdmin && !me.admin) {
    location.href = `login.html?next=${encodeURIComponent(current)}`;
    return null;
  }
  const right = me.admin
    ? el("span", { class: "right" },
        el("span", { id: "who" }, `admin: ${me.username}`),
        el("button", { class: "plain", id: "logout", onclick: logout }, "Log out"))
    : el("span", { class: "right" }, el("a", { href: "login.html" }, "Admin login"));
  const bar = el("header", { class: "bar" },
    el("h1", {}, "HUMAINE competition manager"),
    el("nav", {}, PAGES.map(([href, text]) =>
      el("a", { href, class: href === current ? "here" : null }, text))),
    right);
  document.body.prepend(bar);
  return me;
}

async function logout() {
  await api("api/logout", { method: "POST" });
  location.href = "login.html";
}
