#!/usr/bin/env bash
# Sets Accord up on a fresh machine in .venv/. Safe to run again.
#   bash scripts/setup.sh main   what the main job needs: `pip install -e .` (demo.sh)
#   bash scripts/setup.sh all    everything: the dev, Ray, Parquet, browser, speech and NegMAS
#                                extras, Debian's Chromium for the browser tests (test.sh) and
#                                Debian's espeak-ng for HUMAINE's immersive mode (speech output)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
case "$mode" in
  main) spec='.' ;;
  all) spec='.[dev,negmas]' ;;   # negmas: the NegMAS bridge and its tests
  *) echo "usage: bash scripts/setup.sh [main|all]; got '$mode'" >&2; exit 2 ;;
esac
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.accord-installed-$mode
full=.venv/.accord-installed-all   # everything installed also covers the main job
if { [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; } \
   && { [ "$mode" = all ] || [ ! -f "$full" ] || [ pyproject.toml -nt "$full" ]; }; then
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e "$spec"
  touch "$stamp"
fi
# the OS sandbox of competition mode (accord.sandbox) and its red-team tests need bwrap
if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing bubblewrap (Debian package) for the OS sandbox..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) >/dev/null 2>&1 \
      || echo "warning: could not install bubblewrap; the sandbox red-team tests will be skipped" >&2
  else
    echo "warning: bubblewrap not found and cannot be installed here (sudo apt-get install bubblewrap);" \
      "the sandbox red-team tests will be skipped" >&2
  fi
fi
[ "$mode" = all ] || exit 0
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Chromium (Debian package) for the browser tests..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
      || echo "warning: could not install chromium; browser tests will be skipped" >&2
  else
    echo "warning: chromium not found and cannot be installed here; browser tests will be skipped" >&2
  fi
fi
if ! command -v espeak-ng >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing espeak-ng (Debian package) for HUMAINE's immersive mode..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq espeak-ng) >/dev/null 2>&1 \
      || echo "warning: could not install espeak-ng; speech tests will be skipped" >&2
  else
    echo "warning: espeak-ng not found and cannot be installed here; speech tests will be skipped" >&2
  fi
fi
