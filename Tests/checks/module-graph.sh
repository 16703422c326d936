#!/usr/bin/env bash
# The module graph in docs/architecture.md is generated from Package.swift: a manifest change that
# was not followed by `python3 scripts/module-graph.py --write` fails here, naming the modules whose
# rows or arrows differ. The script's own logic is exercised too: a dump with a module added must be
# reported as drift, so the check cannot pass by comparing nothing.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"

swift package dump-package >"$work/dump.json"
python3 scripts/module-graph.py --check --dump "$work/dump.json"

# A module the doc does not know about must be named as drift (exit 1).
python3 - "$work/dump.json" >"$work/extra.json" <<'PY'
import json, sys
dump = json.load(open(sys.argv[1]))
dump["targets"].append({"name": "ModuleGraphProbe", "type": "regular", "path": "Sources/ModuleGraphProbe",
                        "dependencies": [{"byName": [dump["targets"][0]["name"], None]}]})
json.dump(dump, sys.stdout)
PY
set +e
python3 scripts/module-graph.py --check --dump "$work/extra.json" >"$work/drift.txt" 2>&1
status=$?
set -e
if [ "$status" -ne 1 ] || ! grep -q "drifted from Package.swift: .*ModuleGraphProbe" "$work/drift.txt"; then
  echo "module-graph: --check did not report an added module as drift (exit $status):" >&2
  cat "$work/drift.txt" >&2
  exit 1
fi

# --write on a copy reproduces a section --check accepts.
cp docs/architecture.md "$work/architecture.md"
python3 scripts/module-graph.py --write --dump "$work/extra.json" --doc "$work/architecture.md" >/dev/null
python3 scripts/module-graph.py --check --dump "$work/extra.json" --doc "$work/architecture.md" >/dev/null
echo "module-graph: docs/architecture.md matches Package.swift; drift is detected and --write repairs it"
