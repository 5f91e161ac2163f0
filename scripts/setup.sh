#!/usr/bin/env bash
# Sets up everything Accord needs on a fresh machine: a virtualenv with the package and
# its test tools, and Debian's Chromium for the browser tests. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.accord-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e '.[dev,negmas]'  # negmas: the bridge's tests
  touch "$stamp"
fi
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Chromium (Debian package) for the browser tests..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
      || echo "warning: could not install chromium; browser tests will be skipped" >&2
  else
    echo "warning: chromium not found and cannot be installed here; browser tests will be skipped" >&2
  fi
fi
