"""Every page and script in the package treats data as text and runs under the strict CSP.

The scan reads every ``.html`` and ``.js`` under ``src/accord`` (all leagues, the study
pages, the shared helpers) and refuses:

- HTML built from strings: ``innerHTML`` / ``outerHTML`` assignments other than clearing
  (``= ""``), ``insertAdjacentHTML``, ``document.write``, ``createContextualFragment``;
- code from strings: ``eval``, ``new Function``, ``setTimeout``/``setInterval`` with a
  string;
- what the Content-Security-Policy would block anyway: inline ``<script>`` (a JSON data
  block is fine), ``on...=`` handler attributes, ``javascript:`` addresses.

A line may be let through only with a ``safe-html:`` comment saying why (a constant
template, never data); the test lists those too, so a reviewer sees every exception.
"""

from __future__ import annotations

import re
from pathlib import Path

import accord

ROOT = Path(accord.__file__).resolve().parent

HTML_SINKS = re.compile(
    r"\.(innerHTML|outerHTML)\s*\+?=(?!\s*(\"\"|''|``)\s*;?\s*($|//))"
    r"|insertAdjacentHTML\s*\(|document\.write(ln)?\s*\(|createContextualFragment\s*\("
)
CODE_SINKS = re.compile(
    r"(?<![\w.])eval\s*\(|new\s+Function\s*\(|set(Timeout|Interval)\s*\(\s*[\"'`]"
)
INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>")
HANDLER_ATTR = re.compile(r"<[a-zA-Z][^>]*\s on[a-z]+\s*=", re.X)
JS_URL = re.compile(r"(href|src|action)\s*=\s*[\"']\s*javascript:", re.I)


def pages() -> list[Path]:
    found = sorted(
        p for p in ROOT.rglob("*") if p.suffix in (".html", ".js") and "static" in p.parts
    )
    assert len(found) >= 20, f"expected the leagues' static pages under {ROOT}; found {found}"
    return found


def problems(path: Path) -> list[str]:
    out = []
    text = path.read_text(encoding="utf-8")
    for n, line in enumerate(text.splitlines(), 1):
        if "safe-html:" in line:
            continue
        where = f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}"
        if HTML_SINKS.search(line):
            out.append(f"HTML from a string at {where}")
        if CODE_SINKS.search(line):
            out.append(f"code from a string at {where}")
        if JS_URL.search(line):
            out.append(f"javascript: address at {where}")
        if path.suffix == ".html":
            if INLINE_SCRIPT.search(line):
                out.append(f"inline script (blocked by the CSP) at {where}")
            if HANDLER_ATTR.search(line):
                out.append(f"inline handler attribute (blocked by the CSP) at {where}")
    return out


def test_no_page_builds_html_from_data_or_runs_inline_code() -> None:
    found = [p for path in pages() for p in problems(path)]
    assert found == [], "\n".join(found)


def test_the_exceptions_are_few_and_said() -> None:
    allowed = [
        f"{p.relative_to(ROOT)}: {line.strip()[:90]}"
        for p in pages()
        for line in p.read_text(encoding="utf-8").splitlines()
        if "safe-html:" in line
    ]
    # the HUMAINE avatars are drawn from a constant table of looks, never from data
    assert len(allowed) <= 2, allowed


def test_the_scan_catches_what_it_must(tmp_path: Path) -> None:
    bad = tmp_path / "static" / "bad.html"
    bad.parent.mkdir()
    bad.write_text(
        "<script>alert(1)</script>\n"
        '<button onclick="go()">x</button>\n'
        "el.innerHTML = `<b>${agent.text}</b>`;\n"
        'box.insertAdjacentHTML("beforeend", t);\n'
        "eval(code);\n"
        '<a href="javascript:alert(1)">x</a>\n'
        'el.innerHTML = "";\n'
        '<script type="module" src="x.js"></script>\n'
        '<script type="application/json" id="record">{}</script>\n'
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = problems(bad)
    finally:
        ROOT = saved
    kinds = [f.split(" at ")[0] for f in found]
    assert kinds == [
        "inline script (blocked by the CSP)",
        "inline handler attribute (blocked by the CSP)",
        "HTML from a string",
        "HTML from a string",
        "code from a string",
        "javascript: address",
    ]
