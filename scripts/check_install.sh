#!/usr/bin/env bash
# A user's first steps, checked as a user takes them: copy the repository's files (as a
# clone has them), `pip install .` them into a fresh virtualenv in a temporary folder, and
# run the README's commands from another temporary folder, outside the repository.
# Only the package's own dependencies are installed (no dev extras, no browser).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/clone" "$tmp/work"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard \
  | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' \
  | tar --null -T - -cf -) | tar -xf - -C "$tmp/clone"
"$PY" -m venv "$tmp/venv"
started=$(date +%s)
"$tmp/venv/bin/pip" install -q --upgrade pip
(cd "$tmp/clone" && "$tmp/venv/bin/pip" install -q .)
echo "pip install . took $(( $(date +%s) - started )) s"
export PATH="$tmp/venv/bin:$PATH"
cd "$tmp/work"
step() { echo "\$ $*"; "$@"; }
quiet() { echo "\$ $*"; "$@" >"$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; exit 1; }; }

# start-up: no web stack, pandas, scipy or matplotlib behind `accord --help`
python - <<'PY'
import sys
import accord.cli
heavy = [m for m in ("fastapi", "pandas", "matplotlib", "scipy") if m in sys.modules]
assert not heavy, f"importing accord.cli loaded {heavy}"
assert accord.cli.__file__.startswith(sys.prefix), accord.cli.__file__  # the installed copy
PY
step accord --version
quiet accord --help
# README: Using it
quiet accord negotiate lunch --agents "boulware conceder" --plot lunch.png
test -s lunch.png
quiet accord scenarios convert lunch my_genius_folder --to genius
quiet accord negotiate my_genius_folder -a "frequency linear"
quiet accord scenarios list
quiet accord scenarios show car_purchase
quiet accord scenarios convert my_genius_folder out.json --to native
quiet accord agents list
cp "$repo/examples/my_agent.py" my_agent.py
quiet accord agents check my_agent:Aspirant
quiet accord tournament
test -s results/default-tournament.html
quiet accord report results/default-tournament.sqlite
quiet accord scml run --days 10 --seed 1 --agents trader,random --report out/
quiet accord humaine agents fast-round --buyer shopper --seed 4
quiet accord humaine up --port-base 0 --data humaine-data --exit-after 2 --check
# README: From Python
awk '/^```python/{on=1; next} /^```/{on=0} on' "$repo/README.md" >readme_snippet.py
quiet python readme_snippet.py
echo "install check passed: pip install . in a fresh venv, then the README's commands"
