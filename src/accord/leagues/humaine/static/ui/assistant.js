// Human assistant UI (Fig. 4): countdowns, budget, "Can I make?", offers, deals to
// confirm, utility, Save.
import { api, clock, el, money, say } from "./common/api.js";
import { GOODS, PHASE_NAMES, UNITS, bundleText, phaseClock, pinnedRound, poll } from "./round.js";

const $ = (id) => document.getElementById(id);
const FLAVOURS = { cake: ["chocolate", "vanilla"], pancake: ["chocolate", "blueberry"] };
let current = null;
let lastCheck = null;
let utilityShown = null;
let offersShown = "";
let pendingShown = "";

if (pinnedRound()) $("to-chat").href = `chat.html?round=${encodeURIComponent(pinnedRound())}`;

// --- Can I make? ---------------------------------------------------------------------------
function itemRows(product, count) {
  const box = $(`${product}-items`);
  const label = product === "cake" ? "Cake" : "Pancakes";
  while (box.children.length > count) box.lastElementChild.remove();
  for (let i = box.children.length + 1; i <= count; i++) {
    box.append(el("div", { class: "item", dataset: { product, index: i } },
      el("span", {}, `${label} ${i}`),
      el("select", { name: `${product}-${i}-flavour` },
        el("option", { value: "" }, "plain"),
        FLAVOURS[product].map((f) => el("option", { value: f }, f))),
      el("input", { type: "number", min: "0", max: "99", value: "0", name: `${product}-${i}-amount` })));
  }
}

for (const product of ["cake", "pancake"]) {
  $(`${product}s`).addEventListener("input", (ev) => {
    const n = Math.max(0, Math.min(50, parseInt(ev.target.value || "0", 10)));
    itemRows(product, n);
  });
}

function allocation() {
  const out = {};
  for (const product of ["cake", "pancake"]) {
    const n = Math.max(0, parseInt($(`${product}s`).value || "0", 10));
    const supplement = [];
    for (const row of $(`${product}-items`).children) {
      const flavour = row.querySelector("select").value;
      const amount = parseInt(row.querySelector("input").value || "0", 10);
      if (flavour && amount > 0) supplement.push({ [flavour]: { unit: UNITS[flavour], quantity: amount } });
    }
    out[product] = { unit: "each", quantity: n, supplement };
  }
  return out;
}

function setAllocation(a) {
  for (const product of ["cake", "pancake"]) {
    const p = a[product] || { quantity: 0, supplement: [] };
    $(`${product}s`).value = p.quantity;
    itemRows(product, 0);
    itemRows(product, p.quantity);
    (p.supplement || []).forEach((block, i) => {
      const [flavour, spec] = Object.entries(block)[0] || [];
      const row = $(`${product}-items`).children[i];
      if (!row || !flavour) return;
      row.querySelector("select").value = flavour;
      row.querySelector("input").value = typeof spec === "object" ? spec.quantity : spec;
    });
  }
}

function renderIngredients() {
  const have = current ? current.have : {};
  const need = lastCheck ? lastCheck.rationale : {};
  $("ingredients").tBodies[0].replaceChildren(...GOODS.map((g) => {
    const required = need[g] ? need[g].need : 0;
    const h = have[g] || 0;
    const deficit = Math.max(0, required - h);
    return el("tr", { dataset: { good: g } },
      el("td", {}, `${g} (${UNITS[g]})`), el("td", { class: "num required" }, required),
      el("td", { class: "num have" }, h),
      el("td", { class: `num need ${lastCheck ? (deficit ? "deficit" : "enough") : ""}` }, deficit));
  }));
}

async function check() {
  try {
    lastCheck = await api("api/check", { method: "POST", body: { roundId: current && current.roundId, allocation: allocation() } });
    $("potential").textContent = lastCheck.value === null ? "--" : `$${money(lastCheck.value)}`;
    say($("check-msg"), lastCheck.sufficient ? "You have everything this needs." :
      `Missing: ${bundleText(lastCheck.deficits)}`, lastCheck.sufficient ? "ok" : "error");
  } catch (e) { say($("check-msg"), e.message, "error"); }
  renderIngredients();
}

$("check").addEventListener("click", check);
$("suggest").addEventListener("click", async () => {
  try {
    const s = await api("api/suggest", { method: "POST", body: { roundId: current && current.roundId } });
    setAllocation(s.allocation);
    await check();
  } catch (e) { say($("check-msg"), e.message, "error"); }
});
$("save").addEventListener("click", async () => {
  try {
    const r = await api("api/allocation", { method: "POST", body: { roundId: current && current.roundId, allocation: allocation() } });
    say($("check-msg"), `Allocation saved (value $${money(r.value)}). You can save again until the timer ends.`);
  } catch (e) { say($("check-msg"), e.message, "error"); }
});

// --- offers, utility, deals ----------------------------------------------------------------
async function accept(seller) {
  try {
    const r = await api("api/say", { method: "POST", body: { roundId: current.roundId, addressee: seller, text: `${seller}, I accept your offer.` } });
    if (r.reply && r.reply.permitted === false) say($("offer-msg"), `Blocked: ${r.reply.rationale}`, "error");
    else say($("offer-msg"), `You accepted ${seller}'s offer; waiting for ${seller} to confirm.`);
  } catch (e) { say($("offer-msg"), e.message, "error"); }
}

function renderOffers(state) {
  const sig = JSON.stringify([state.offers, state.phase]);
  if (sig === offersShown) return;
  offersShown = sig;
  $("offers").tHead.replaceChildren(el("tr", {}, el("th", {}, "Seller"), GOODS.map((g) => el("th", {}, g)),
    el("th", {}, "Price"), el("th", {}, "")));
  const sellers = Object.keys(state.offers);
  $("offers").tBodies[0].replaceChildren(...(sellers.length ? sellers.map((s) => {
    const o = state.offers[s];
    return el("tr", { dataset: { seller: s } }, el("td", {}, s),
      GOODS.map((g) => el("td", {}, o.quantity[g] || "")),
      el("td", {}, o.price === null || o.price === undefined ? "?" : `$${money(o.price)}`),
      el("td", {}, el("button", { class: "plain", disabled: state.phase !== "active", onclick: () => accept(s) }, "Accept")));
  }) : [el("tr", {}, el("td", { colspan: GOODS.length + 3, class: "muted" }, "No outstanding offers."))]));
}

function renderUtility(utility) {
  const sig = JSON.stringify(utility);
  if (!utility || sig === utilityShown) return;
  utilityShown = sig;
  const inner = utility.utility || {};
  $("utility-body").classList.remove("muted");
  $("utility-body").replaceChildren(...["cake", "pancake"].filter((p) => inner[p]).map((p) => {
    const params = inner[p].parameters;
    return el("table", { dataset: { product: p } },
      el("tr", {}, el("td", {}, el("strong", {}, p === "cake" ? "Cake" : "Pancake batch")),
        el("td", { class: "num unit-value" }, `$${money(params.unitvalue)}`)),
      Object.entries(params.supplement || {}).map(([f, t]) => el("tr", {},
        el("td", {}, `+ ${f} ${t.parameters.minQuantity}-${t.parameters.maxQuantity} ${t.unit}`),
        el("td", { class: "num" }, `+$${money(t.parameters.minValue)} to +$${money(t.parameters.maxValue)}`))));
  }));
}

// A seller accepted: the person confirms or declines; no answer in time declines.
async function decide(deal, confirm) {
  try {
    const r = await api("api/decide", { method: "POST", body: { roundId: current.roundId, deal: deal.id, confirm } });
    say($("offer-msg"), confirm ? `Confirmed: you bought from ${r.deal.seller}.` :
      `Declined: nothing bought from ${r.deal.seller}; your money is back.`, confirm ? "ok" : "error");
  } catch (e) { say($("offer-msg"), e.message, "error"); }
}

function renderPending(state) {
  const pending = state.pending || [];
  const sig = JSON.stringify(pending.map((d) => d.id));
  if (sig !== pendingShown) {
    pendingShown = sig;
    $("pending").classList.toggle("hidden", !pending.length);
    if (pending.length) say($("offer-msg"), "A seller accepted: confirm or decline the deal above.");
    $("pending-list").replaceChildren(...pending.map((d) =>
      el("div", { class: "pending-deal", dataset: { deal: d.id, seller: d.seller } },
        el("div", { class: "what" }, el("strong", {}, d.seller), " sells you ",
          el("strong", {}, bundleText(d.quantity)), " for ", el("strong", { class: "price" }, `$${money(d.price)}`)),
        el("div", { class: "buttons" },
          el("button", { type: "button", class: "confirm", onclick: () => decide(d, true) }, "Confirm"),
          el("button", { type: "button", class: "danger decline", onclick: () => decide(d, false) }, "Decline")),
        el("div", { class: "muted left" }, ""))));
  }
  for (const d of pending) {
    const row = $("pending-list").querySelector(`[data-deal="${d.id}"] .left`);
    if (row) row.textContent = `Declined for you in ${clock(d.secondsLeft)} unless you confirm.`;
  }
}

function dealText(d) {
  return `${d.seller}: ${bundleText(d.quantity)} for $${money(d.price)}`;
}

function renderDeals(state) {
  const declined = state.declined || [];
  if (!state.deals.length && !declined.length) return;
  $("deals").classList.remove("muted");
  const why = { person: "you declined", timeout: "not confirmed in time", orchestrator: "not confirmed in time" };
  $("deals").replaceChildren(
    ...state.deals.map((d) => el("div", { class: "deal", dataset: { deal: d.id } }, dealText(d))),
    ...declined.map((d) => el("div", { class: "deal declined", dataset: { deal: d.id } },
      el("span", { class: "what" }, dealText(d)), el("span", { class: "why" }, `declined: ${why[d.by] || d.by}`))));
}

function render(state) {
  current = state;
  if (!state) return;
  $("phase").textContent = PHASE_NAMES[state.phase] || state.phase;
  $("round-id").textContent = `round ${state.roundId}`;
  $("warmup-time").textContent = phaseClock(state, "warmUp");
  $("round-time").textContent = phaseClock(state, "round");
  $("post-time").textContent = phaseClock(state, "post");
  for (const [box, phase] of [["warmup-box", "warmup"], ["round-box", "active"], ["post-box", "post"]]) {
    $(box).classList.toggle("now", state.phase === phase);
  }
  $("money").textContent = state.left === null ? "--" : `$${money(state.left)}`;
  $("reserved").textContent = state.reserved ? `$${money(state.reserved)} awaiting your confirmation` : "";
  $("save").classList.toggle("hidden", state.phase !== "post");
  if (state.allocation) {
    $("saved").textContent = `Saved allocation: ${state.allocation.cake.quantity} cake(s), ` +
      `${state.allocation.pancake.quantity} pancake batch(es), value $${money(state.allocation.value)}`;
  }
  renderUtility(state.utility);
  renderOffers(state);
  renderPending(state);
  renderDeals(state);
  renderIngredients();
}

poll(render);
