// The play page: any protocol served by accord.web.driver.RulesGame, built from what
// the server says alone (observe() for the state, legal() for the forms, the rules'
// panels for what is shown beside them). Text from the server and the agents is
// inserted as text only (safe.js).
import { api, busy, el, fill, setText } from "/accord/safe.js";

const query = new URLSearchParams(location.search);
const party = Number(query.get("party") || "0");
const seat = `party=${encodeURIComponent(party)}&token=${encodeURIComponent(query.get("token") || "")}`;
const $ = (id) => document.getElementById(id);

function outcomeText(outcome) {
  if (!outcome) return "-";
  return Object.entries(outcome).map(([k, v]) => `${k}: ${v}`).join(", ");
}

function utilityText(u) {
  return u === null || u === undefined ? "-" : u.toFixed(3);
}

function field(f) {
  const label = el("label", {}, f.label);
  let input;
  if (f.kind === "choice") {
    input = el("select", { name: f.name });
    f.options.forEach((o, i) => input.append(el("option", { value: String(i) }, String(o))));
  } else if (f.kind === "text") {
    input = el("input", { name: f.name, type: "text", maxlength: f.max_length ?? undefined });
  } else {
    input = el("input", {
      name: f.name, type: "number", min: f.low ?? undefined, max: f.high ?? undefined,
      step: f.kind === "integer" ? "1" : "any", value: f.low ?? 0,
    });
  }
  label.append(input);
  return { label, read: () => readValue(f, input) };
}

function readValue(f, input) {
  if (f.kind === "choice") return f.options[Number(input.value)];
  if (f.kind === "text") return input.value;
  return f.kind === "integer" ? parseInt(input.value, 10) : Number(input.value);
}

function actionForm(spec) {
  const fields = spec.fields.map(field);
  const button = el("button", { type: "submit", dataset: { kind: spec.kind } }, spec.label);
  const form = el("form", { class: "action", dataset: { kind: spec.kind } },
    ...fields.map((f) => f.label), button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const args = {};
    spec.fields.forEach((f, i) => { args[f.name] = fields[i].read(); });
    busy([button], async () => {
      setText($("error"), "");
      try {
        render(await api(`api/act?${seat}`, { method: "POST", body: { kind: spec.kind, args } }));
      } catch (e) {
        setText($("error"), e.message);
      }
    });
  });
  return form;
}

let shownLegal = null;
let shownVersion = -1;

function render(view) {
  // Answers may arrive out of order (the act's own answer after the refresh an update
  // asked for): never go back to an older state of the play.
  if (view.version < shownVersion) return;
  shownVersion = view.version;
  const o = view.observation;
  const names = view.names || o.names || [];
  const panels = new Set(view.panels || ["state", "events"]);
  document.querySelectorAll("[data-panel]").forEach((node) => {
    node.hidden = !panels.has(node.dataset.panel);
  });
  const me = names[party] ?? `party ${party}`;
  setText($("title"), `${view.protocol}: you are ${me}`);
  const toAct = view.to_act || [];
  let status;
  if (view.over) status = panels.has("offers") ? "The negotiation is over." : "The play is over.";
  else if (toAct.includes(party)) status = "Your turn.";
  else status = `Waiting for ${toAct.map((k) => names[k] ?? k).join(", ")}...`;
  setText($("status"), status);
  if (panels.has("clock")) {
    const deadline = o.deadline || {};
    const rounds = deadline.rounds ? ` of ${deadline.rounds}` : "";
    setText($("clock"), `Round ${o.round + 1}${rounds}; time used ${(100 * o.time).toFixed(0)}%`);
  }
  if (panels.has("standing")) {
    if (o.standing) {
      const by = names[o.proposer] ?? o.proposer;
      setText($("standing"),
        `${by} offers ${outcomeText(o.standing)} (your utility ${utilityText(o.my_utility_of_standing)})`);
    } else {
      setText($("standing"), "No offer yet.");
    }
  }
  // Rebuild the forms only when what is allowed changed: a refresh must not wipe
  // choices the person is making.
  const legal = JSON.stringify([o.step, o.turn, o.phase, view.legal]);
  if (legal !== shownLegal) {
    shownLegal = legal;
    fill($("actions"), ...view.legal.actions.map(actionForm));
  }
  if (panels.has("offers")) {
    const rows = (o.offers || []).map((offer, i) => el("tr", {},
      el("td", {}, String(i + 1)), el("td", {}, names[offer.party] ?? String(offer.party)),
      el("td", {}, outcomeText(offer.outcome)), el("td", {}, utilityText(offer.my_utility))));
    fill($("offers"), ...rows);
  }
  if (panels.has("state")) {
    const rows = Object.entries(o).filter(([k]) => k !== "result").map(([k, v]) =>
      el("tr", {}, el("th", {}, k), el("td", {}, valueText(v))));
    fill($("state"), ...rows);
  }
  if (panels.has("events")) {
    fill($("events"), ...(view.events || []).slice(-50).map((e) => el("li", {},
      `${e.party === null ? "" : `${names[e.party] ?? e.party}: `}${e.kind} ${valueText(e.data)}`)));
  }
  const result = view.over ? (view.result ?? o.result ?? null) : null;
  $("result").hidden = !view.over;
  if (view.over) setText($("result-text"), resultText(result, panels));
}

function valueText(v) {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

function resultText(result, panels) {
  if (!result) return "over";
  if (panels.has("offers") && Array.isArray(result.utilities)) {
    const agreed = result.agreement ? `agreement on ${result.agreement.join(", ")}` : "no agreement";
    return `${result.reason}: ${agreed}; your utility ${utilityText(result.utilities[party])}`;
  }
  return valueText(result);
}

async function refresh() {
  try {
    render(await api(`api/state?${seat}`));
  } catch (e) {
    setText($("error"), e.message);
  }
}

// The live stream sends the whole view after every change (and when the play changes by
// itself); it ends once the play is over, so the page closes it then (no reconnecting).
const live = new EventSource(`api/live?${seat}`);
live.addEventListener("state", (e) => {
  const view = JSON.parse(e.data);
  render(view);
  if (view.over) live.close();
});
live.addEventListener("error", (e) => {
  if (e.data) setText($("error"), JSON.parse(e.data).error);
});
refresh();
