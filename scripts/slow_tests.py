"""Print the slow-test list of the quick tier from a full run's JUnit XML.

    .venv/bin/python -m pytest --junitxml=run.xml src/accord tests   # the full suite
    .venv/bin/python scripts/slow_tests.py run.xml [budget_seconds] > slow.txt

Tests already marked ``browser``, ``ray`` or ``slow`` are left out of the list (the quick
tier skips them by marker); of the others, the slowest are listed until the rest take at
most ``budget_seconds`` (default 100) in that run. Merge the output into
``tests/slow_tests.txt`` below its hand-written group prefixes.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def node_id(classname: str, name: str) -> str | None:
    parts = classname.split(".")
    for i in range(len(parts), 0, -1):
        path = "/".join(parts[:i]) + ".py"
        if (REPO / path).is_file():
            return "::".join([path, *parts[i:], name])
    return None


def main(xml: str, budget: float = 100.0) -> None:
    marked = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=--import-mode=importlib",
         "--collect-only", "-q", "-m", "browser or ray or slow", "tests"],
        cwd=REPO, capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip
    skip = {line for line in marked if "::" in line}
    timed = []
    for case in ET.parse(xml).getroot().iter("testcase"):
        nid = node_id(case.get("classname", ""), case.get("name", ""))
        if nid is not None and nid.startswith("tests/") and nid not in skip:
            timed.append((float(case.get("time") or 0.0), nid))
    timed.sort(reverse=True)
    rest = sum(t for t, _ in timed)
    for t, nid in timed:
        if rest <= budget:
            break
        print(f"{nid}  # {t:.1f} s")
        rest -= t
    print(f"# the rest: {rest:.0f} s in that run", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], *(float(a) for a in sys.argv[2:3]))
