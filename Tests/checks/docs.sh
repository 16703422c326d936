#!/usr/bin/env bash
# Every library product has a DocC catalog in one of its targets; every catalog builds with the
# toolchain's docc, broken symbol and article links failing the build (--warnings-as-errors), and
# every program in the articles type-checks against the built modules (scripts/build-docs.sh).
# Reuses the debug build.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
description="$(mktemp)"
trap 'rm -f "$description"' EXIT
swift package describe --type json >"$description" 2>/dev/null
python3 - "$description" <<'PY'
import json, pathlib, sys
package = json.load(open(sys.argv[1]))
paths = {t["name"]: pathlib.Path(t["path"]) for t in package["targets"]}
missing = [f"{p['name']} (targets {', '.join(p['targets'])})" for p in package["products"]
           if "library" in p["type"] and not any((paths[t] / f"{t}.docc").is_dir() for t in p["targets"])]
if missing:
    sys.exit("docs: library products without a DocC catalog TARGET/TARGET.docc in one of their targets: " + "; ".join(missing))
PY
bash scripts/build-docs.sh
