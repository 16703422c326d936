# modules.sh: where a module's sources live, for scripts that compile modules without SwiftPM.
# Source it, then:
#   module_dir NAME   # prints the module's folder: Sources/<room>/NAME or firmware-sim/Sources/<room>/NAME,
#                     # relative to the current directory's checkout root (or under $MODULES_ROOT when set)
#   room_modules ROOM # prints the module folders of one room (e.g. Sources/Core), one per line, sorted
# Package.swift is the authority on rooms; this only finds folders, so a module moved between rooms
# needs no script changed.
module_dir() {
  local base="${MODULES_ROOT:-.}" dir
  for dir in "$base"/Sources/*/"$1" "$base"/firmware-sim/Sources/*/"$1"; do
    if [ -d "$dir" ]; then
      [ -n "${MODULES_ROOT:-}" ] && echo "$dir" || echo "${dir#./}"
      return 0
    fi
  done
  echo "modules.sh: no module $1 under Sources/*/ or firmware-sim/Sources/*/" >&2
  return 1
}

room_modules() {
  local base="${MODULES_ROOT:-.}"
  find "$base/$1" -mindepth 1 -maxdepth 1 -type d | sort
}

# embedded_modules: the Embedded-Swift-clean modules — every module folder in Sources/Core and
# firmware-sim/Sources/Embedded — in dependency order (from their import lines), one
# "NAME<TAB>FOLDER" per line. scripts/check-embedded.sh and firmware-sim/board/build.sh compile these.
embedded_modules() {
  python3 - "${MODULES_ROOT:-.}" <<'PY'
import os, re, sys
base = sys.argv[1]
folders = {}
for room in ("Sources/Core", "firmware-sim/Sources/Embedded"):
    path = os.path.join(base, room)
    for name in sorted(os.listdir(path)):
        if os.path.isdir(os.path.join(path, name)):
            folders[name] = os.path.normpath(os.path.join(path, name)) if base != "." else os.path.join(room, name)
imports = re.compile(r"^\s*(?:@_exported\s+|@preconcurrency\s+)?(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(\w+)", re.M)
needs = {}
for name, folder in folders.items():
    found = set()
    for directory, _, files in os.walk(folder):
        for file in files:
            if file.endswith(".swift"):
                found |= set(imports.findall(open(os.path.join(directory, file), encoding="utf-8").read()))
    needs[name] = (found & set(folders)) - {name}
done = []
while len(done) < len(folders):
    ready = sorted(n for n in folders if n not in done and needs[n] <= set(done))
    if not ready:
        sys.exit("modules.sh: an import cycle among " + ", ".join(sorted(set(folders) - set(done))))
    done.append(ready[0])
for name in done:
    print(f"{name}\t{folders[name]}")
PY
}
