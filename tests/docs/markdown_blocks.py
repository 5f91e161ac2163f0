"""Run the code blocks of a Markdown guide, as the tests of ``docs/`` do.

Convention (stated in ``docs/README.md``):

- every fenced ```` ```python ```` block runs, top to bottom, all blocks of one file in
  one shared namespace (a later block may use what an earlier one defined);
- a block whose info string also says ``notest`` (```` ```python notest ````) is shown
  but not run (servers that run until Ctrl-C, paths that exist only on your machine);
- ```` ```pycon ```` blocks are doctests: each ``>>>`` line runs in the same namespace
  and its printed output must match exactly.

Run one guide by hand: ``python tests/docs/markdown_blocks.py docs/concepts.md``
(the examples folder must be importable for the guides that use ``my_agent``).

    >>> blocks = extract_blocks("text\\n```python\\nx = 1\\n```\\n```python notest\\ny\\n```\\n")
    >>> [(b.kind, b.line, b.code, b.run) for b in blocks]
    [('python', 3, 'x = 1\\n', True), ('python', 6, 'y\\n', False)]
"""

from __future__ import annotations

import doctest
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RUNNABLE = ("python", "pycon")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, first code line (1-based), code, whether it runs."""

    kind: str
    line: int
    code: str
    run: bool


def extract_blocks(text: str) -> list[Block]:
    """The ``python`` and ``pycon`` fenced blocks of a Markdown text, in order."""
    blocks: list[Block] = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped.startswith("```"):
            i += 1
            continue
        fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
        info = stripped[len(fence) :].split()
        start = i + 1
        j = start
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        if j >= len(lines):
            raise ValueError(f"line {i + 1}: code block opened with {fence} is never closed")
        if info and info[0] in RUNNABLE:
            code = "".join(lines[start:j])
            blocks.append(Block(info[0], start + 1, code, "notest" not in info[1:]))
        i = j + 1
    return blocks


def run_file(path: str | Path) -> int:
    """Run every runnable block of ``path``; print what failed. Returns the failure count."""
    source = Path(path)
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": str(source)}
    failures = 0
    for block in extract_blocks(source.read_text(encoding="utf-8")):
        if not block.run:
            continue
        where = f"{source}:{block.line}"
        if block.kind == "python":
            # Pad with newlines so tracebacks give the line number in the Markdown file.
            code = "\n" * (block.line - 1) + block.code
            try:
                exec(compile(code, str(source), "exec"), namespace)
            except Exception:  # noqa: BLE001 - report and go on with the next file
                print(f"FAILED python block at {where}:", file=sys.stderr)
                traceback.print_exc()
                return failures + 1
        else:
            parser = doctest.DocTestParser()
            test = parser.get_doctest(block.code, namespace, where, str(source), block.line - 1)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            result = runner.run(test, clear_globs=False)
            namespace.update(test.globs)  # DocTest works on a copy; share what it defined
            if result.failed:
                print(f"FAILED pycon block at {where}", file=sys.stderr)
                failures += 1
    return failures


def main(argv: list[str]) -> int:
    failed = sum(run_file(p) for p in argv)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
