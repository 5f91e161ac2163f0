// The two sellers as SVG avatars (drawn here, no external assets): Celia and Watson.
// An avatar idles (blinks, breathes), opens its mouth with the speech's loudness and
// performs the gestures a message asks for (CSS classes g-<gesture>, see avatars.css).

const LOOKS = {
  Celia: { skin: "#f3c9a8", hair: "#8a3b1f", shirt: "#b8336a", accent: "#f7d774", lips: "#b03a48", long: true },
  Watson: { skin: "#d9a27a", hair: "#2b2b33", shirt: "#2f5d9a", accent: "#e9eef6", lips: "#8a4b3a", long: false },
};

function svgFor(look) {
  const hairBack = look.long
    ? `<path d="M52 95 Q50 30 100 28 Q150 30 148 95 L158 185 Q100 200 42 185 Z" fill="${look.hair}"/>`
    : "";
  const hairFront = look.long
    ? `<path d="M58 88 Q62 40 100 38 Q140 40 142 88 Q128 58 100 56 Q76 58 58 88 Z" fill="${look.hair}"/>`
    : `<path d="M58 82 Q58 36 100 36 Q142 36 142 82 Q138 60 120 54 Q100 62 78 54 Q62 60 58 82 Z" fill="${look.hair}"/>`;
  const extras = look.long
    ? `<circle cx="58" cy="112" r="4" fill="${look.accent}"/><circle cx="142" cy="112" r="4" fill="${look.accent}"/>`
    : `<g class="glasses" fill="none" stroke="#1d1d22" stroke-width="2.5">
         <circle cx="83" cy="92" r="12"/><circle cx="117" cy="92" r="12"/><path d="M95 92 H105"/></g>
       <path d="M70 128 Q100 158 130 128 Q126 150 100 156 Q74 150 70 128 Z" fill="${look.hair}" opacity="0.55"/>`;
  const neckwear = look.long
    ? `<path d="M84 176 L100 196 L116 176" fill="none" stroke="${look.accent}" stroke-width="4"/>`
    : `<path d="M96 178 L104 178 L108 222 L100 232 L92 222 Z" fill="#b23b3b"/>`;
  return `
  <svg class="avatar" viewBox="0 0 200 260" role="img">
    <g class="upper">
      <g class="thought"><circle cx="160" cy="30" r="16" fill="#fff" stroke="#9aa"/>
        <circle cx="142" cy="52" r="5" fill="#fff" stroke="#9aa"/>
        <text x="160" y="35" text-anchor="middle" font-size="16" fill="#567">?</text></g>
      <g class="torso">
        <g class="shoulders">
          <path d="M30 260 Q30 185 100 172 Q170 185 170 260 Z" fill="${look.shirt}"/>
          ${neckwear}
          <path class="arm-rest-l" d="M38 200 Q30 235 40 260" stroke="${look.shirt}" stroke-width="16" fill="none"/>
          <path class="arm-rest-r" d="M162 200 Q170 235 160 260" stroke="${look.shirt}" stroke-width="16" fill="none"/>
          <g class="palms">
            <path d="M40 205 Q20 200 12 180" stroke="${look.shirt}" stroke-width="14" fill="none"/>
            <circle cx="12" cy="176" r="8" fill="${look.skin}"/>
            <path d="M160 205 Q180 200 188 180" stroke="${look.shirt}" stroke-width="14" fill="none"/>
            <circle cx="188" cy="176" r="8" fill="${look.skin}"/>
          </g>
        </g>
        <g class="arm-wave">
          <path d="M160 205 Q184 180 180 130" stroke="${look.shirt}" stroke-width="15" fill="none"/>
          <ellipse cx="180" cy="120" rx="10" ry="13" fill="${look.skin}"/>
        </g>
      </g>
      <rect x="88" y="140" width="24" height="36" fill="${look.skin}"/>
      <g class="head">
        ${hairBack}
        <ellipse cx="100" cy="98" rx="42" ry="50" fill="${look.skin}"/>
        ${hairFront}
        <g class="eyes">
          <ellipse cx="83" cy="92" rx="7" ry="5" fill="#fff"/><ellipse cx="117" cy="92" rx="7" ry="5" fill="#fff"/>
          <circle class="pupil" cx="83" cy="92" r="3.4" fill="#2a2a35"/><circle class="pupil" cx="117" cy="92" r="3.4" fill="#2a2a35"/>
          <rect class="lid" x="75" y="86" width="16" height="11" fill="${look.skin}"/>
          <rect class="lid" x="109" y="86" width="16" height="11" fill="${look.skin}"/>
        </g>
        <path d="M74 80 Q83 75 92 80" stroke="${look.hair}" stroke-width="3" fill="none"/>
        <path d="M108 80 Q117 75 126 80" stroke="${look.hair}" stroke-width="3" fill="none"/>
        <path d="M100 98 Q96 112 101 114" stroke="#b07a5a" stroke-width="2" fill="none"/>
        <ellipse class="cheek" cx="76" cy="114" rx="7" ry="4" fill="#f08a8a"/>
        <ellipse class="cheek" cx="124" cy="114" rx="7" ry="4" fill="#f08a8a"/>
        <ellipse class="mouth-open" cx="100" cy="128" rx="10" ry="1.5" fill="${look.lips}"/>
        <path class="mouth-smile" d="M86 124 Q100 138 114 124" stroke="${look.lips}" stroke-width="3" fill="none"/>
        ${extras}
      </g>
      <g class="chin-hand"><path d="M60 200 Q70 170 88 150" stroke="${look.shirt}" stroke-width="14" fill="none"/>
        <circle cx="92" cy="146" r="9" fill="${look.skin}"/></g>
    </g>
  </svg>`;
}

// One avatar in its seat: name, speech bubble, gesture label, the figure.
export class Avatar {
  constructor(seat, name, index) {
    this.name = name;
    this.seat = seat;
    const look = LOOKS[name] || (index === 0 ? LOOKS.Celia : LOOKS.Watson);
    seat.dataset.name = name;
    seat.classList.add(`avatar-${name.toLowerCase()}`);
    const bubble = document.createElement("div");
    bubble.className = "bubble";
    const figure = document.createElement("div");
    figure.innerHTML = svgFor(look); // safe-html: only the constant LOOKS table, no data
    this.svg = figure.firstElementChild;
    this.svg.dataset.name = name;
    this.svg.setAttribute("aria-label", `${name}, a seller`);
    const label = document.createElement("div");
    label.className = "gesture-label";
    const title = document.createElement("div");
    title.className = "name";
    title.textContent = name;
    const cue = document.createElement("div");
    cue.className = "cue";
    seat.replaceChildren(bubble, this.svg, title, label, cue);
    this.bubble = bubble;
    this.label = label;
    this.cue = cue;
    this.mouth = this.svg.querySelector(".mouth-open");
  }

  // the mouth's opening, 0 (closed) to 1 (wide)
  mouthOpen(level) {
    const v = Math.max(0, Math.min(1, level));
    this.mouth.setAttribute("ry", (1.5 + v * 11).toFixed(2));
    this.mouth.setAttribute("rx", (10 - v * 2).toFixed(2));
  }

  // start a message: bubble, gestures (kept until done())
  begin(text, gestures) {
    this.seat.classList.add("speaking");
    this.bubble.textContent = text;
    this.gestures = gestures || [];
    for (const g of this.gestures) this.svg.classList.add(`g-${g}`);
    this.svg.dataset.gestures = this.gestures.join(" ");
    this.label.textContent = this.gestures.length ? this.gestures.map((g) => g.replace("_", " ")).join(", ") : "";
  }

  done() {
    this.seat.classList.remove("speaking");
    this.mouthOpen(0);
    for (const g of this.gestures || []) this.svg.classList.remove(`g-${g}`);
    this.bubble.classList.add("last");
    this.svg.dataset.gestures = "";
    this.label.textContent = "";
  }
}
