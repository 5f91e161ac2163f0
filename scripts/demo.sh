#!/usr/bin/env bash
# Sets up what the main job needs (the package and its dependencies, no dev tools, no
# browser), then runs it: a tournament of the built-in agents on the bundled scenarios.
# Prints the leaderboards and where the HTML report is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh main
.venv/bin/accord tournament "$@"
