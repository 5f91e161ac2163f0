#!/usr/bin/env bash
# Sets everything up, then runs the checks, the whole test suite and, once, a real
# `pip install .` into a fresh virtualenv outside the repository followed by the README's
# commands (scripts/check_install.sh; ACCORD_SKIP_INSTALL_CHECK=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh all
echo "== ruff"
.venv/bin/ruff check src tests bench
.venv/bin/ruff format --check src tests bench
echo "== mypy (strict, the whole package)"
.venv/bin/mypy
if [ "${ACCORD_SKIP_INSTALL_CHECK:-0}" != 1 ]; then
  echo "== pip install . into a fresh venv, then the README's commands"
  bash scripts/check_install.sh
fi
echo "== pytest"
.venv/bin/python -m pytest --doctest-modules --durations=15 src/accord tests "$@"
