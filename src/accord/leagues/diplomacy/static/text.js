// Building page content from agents' data: always as text, never as HTML.
export function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}
export function fill(parent, children) {
  parent.replaceChildren(...children);
}
export function dealText(d) {
  const parts = (d.commitments || []).map(c => `${c[2]}: ${c[3]} (${c[1]}${c[0]})`)
    .concat((d.dmzs || []).map(z => `DMZ ${z[3].join(",")} for ${z[2].join(",")} (${z[1]}${z[0]})`));
  return `${d.proposer} proposes ` + parts.join("; ");
}
