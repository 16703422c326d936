#!/usr/bin/env bash
# Every library product has a DocC catalog in one of its targets; every catalog builds with the
# toolchain's docc, broken symbol and article links failing the build (--warnings-as-errors), and
# every program in the articles type-checks against the built modules (scripts/build-docs.sh).
# Reuses the debug build.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
swift package describe --type json 2>/dev/null | python3 -c '
import json, pathlib, sys
package = json.load(sys.stdin)
paths = {t["name"]: pathlib.Path(t["path"]) for t in package["targets"]}
missing = []
for product in package["products"]:
    if "library" not in product["type"]:
        continue
    if not any((paths[t] / f"{t}.docc").is_dir() for t in product["targets"]):
        missing.append(f"{product['"'"'name'"'"']} (targets {', '.join(product['"'"'targets'"'"'])})")
if missing:
    sys.exit("docs: library products without a DocC catalog (TARGET/TARGET.docc): " + "; ".join(missing))
'
bash scripts/build-docs.sh
