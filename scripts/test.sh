#!/usr/bin/env bash
# Sets everything up, then runs the checks and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== ruff"
.venv/bin/ruff check src tests bench
.venv/bin/ruff format --check src tests bench
echo "== mypy (strict, the whole package)"
.venv/bin/mypy
echo "== pytest"
.venv/bin/python -m pytest --doctest-modules src/accord tests "$@"
