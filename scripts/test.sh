#!/usr/bin/env bash
# The README's test command.
#   bash scripts/test.sh           everything CI runs: set-up, ruff, mypy --strict, once a real
#                                  `pip install .` into a fresh virtualenv outside the repository
#                                  followed by the README's commands (scripts/check_install.sh;
#                                  ACCORD_SKIP_INSTALL_CHECK=1 skips it), and the whole test suite
#                                  with the doctests (well under 15 minutes on 2 cores)
#   bash scripts/test.sh --quick   the inner loop (under 3 minutes on 2 cores): ruff and the
#                                  tests but the browser, Ray and slow ones (marked, or listed in
#                                  tests/slow_tests.txt with their measured time); no mypy, no
#                                  install check, no doctests
# Further arguments go to pytest (e.g. `bash scripts/test.sh --quick tests/core`).
#
# Both run the tests in ACCORD_TEST_WORKERS processes (pytest-xdist; default 2, one a core
# on the 2-core CI machine; 0 runs them in this process), a whole test file to a worker
# (--dist loadfile: a module's browser and servers are started once, as in one process).
#
# Real scenario files: the tests read real ANAC/GENIUS scenarios from $ACCORD_SCENARIOS,
# else ../shared/scenarios beside the clone (34 GENIUS + 4 GeniusWeb folders), else the 20 +
# 4 folders bundled in tests/data/scenarios (GPL-3.0 test data; see its README). A clone alone
# runs every test; the "every folder" sweeps then cover the bundled folders.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
workers=(-n "${ACCORD_TEST_WORKERS:-2}" --dist loadfile)
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
bash scripts/setup.sh all
if [ -n "${ACCORD_SCENARIOS:-}" ]; then
  scen="$ACCORD_SCENARIOS (ACCORD_SCENARIOS)"
elif [ -d ../shared/scenarios/genius ]; then
  scen="../shared/scenarios (the full set)"
else
  scen="tests/data/scenarios (bundled: the sweeps cover 20 of 34 GENIUS folders; see its README)"
fi
echo "== real scenario files: $scen"
echo "== ruff"
.venv/bin/ruff check src tests bench
.venv/bin/ruff format --check src tests bench
if [ "$quick" = 1 ]; then
  echo "== pytest, quick tier (not browser, not ray, not slow; tests/slow_tests.txt)"
  deselect=()
  while IFS= read -r line; do
    id=${line%%#*}
    id=${id%"${id##*[![:space:]]}"}
    [ -n "$id" ] && deselect+=(--deselect "$id")
  done < tests/slow_tests.txt
  started=$(date +%s)
  .venv/bin/python -m pytest -m "not browser and not ray and not slow" "${deselect[@]}" \
    "${workers[@]}" --durations=10 "${@:-tests}"
  echo "== quick tier took $(( $(date +%s) - started )) s"
  exit 0
fi
echo "== mypy (strict, the whole package)"
.venv/bin/mypy
if [ "${ACCORD_SKIP_INSTALL_CHECK:-0}" != 1 ]; then
  echo "== pip install . into a fresh venv, then the README's commands"
  bash scripts/check_install.sh
fi
echo "== pytest"
started=$(date +%s)
.venv/bin/python -m pytest "${workers[@]}" --doctest-modules --durations=15 src/accord tests "$@"
echo "== pytest took $(( $(date +%s) - started )) s"
