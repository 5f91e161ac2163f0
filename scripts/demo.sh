#!/usr/bin/env bash
# Sets everything up, then runs the main job: a tournament of the built-in agents on the
# bundled scenarios. Prints the leaderboards and where the HTML report is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/accord tournament "$@"
