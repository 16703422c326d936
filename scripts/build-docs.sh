#!/usr/bin/env bash
# Builds every DocC catalog in the tree (one per library product, in the module that represents
# it) with the toolchain's own `docc` — the swift-docc-plugin cannot be fetched here — into
# .build/docs/MODULE.doccarchive, with warnings treated as errors, so a broken ``symbol`` or
# <doc:article> link fails. Then type-checks every ```swift block of the catalogs that begins
# with an import against the built modules, so the articles' code compiles.
#
#   bash scripts/build-docs.sh [MODULE...]     (default: every catalog)
#
# Reuses the debug build: `swift build` (incremental), then the symbol graphs of the catalogs'
# modules extracted from its module files, as `swift package dump-symbol-graph` does for all.
# Exit status: 0 all built, 1 a catalog or a code block failed (its diagnostics on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
docc="${DOCC:-$swift_bin/docc}"
extract="$swift_bin/swift-symbolgraph-extract"
for tool in "$docc" "$extract"; do
  [ -x "$tool" ] || { echo "build-docs: $tool not found beside swift" >&2; exit 1; }
done

catalogs=()
while IFS= read -r catalog; do
  module="$(basename "$catalog" .docc)"
  if [ "$#" -eq 0 ] || printf '%s\n' "$@" | grep -qx "$module"; then catalogs+=("$catalog"); fi
done < <(find Sources firmware-sim/Sources -name '*.docc' -type d | sort)
[ "${#catalogs[@]}" -gt 0 ] || { echo "build-docs: no catalog for: $*" >&2; exit 1; }

echo "==> swift build"
swift build 2>&1 | grep -Ev "^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write|^Build complete" || true
bin="$(swift build --show-bin-path)"
modules="$bin/Modules"
[ -d "$modules" ] || modules="$bin"
target="$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')"
# The C modules' maps, as SwiftPM passes them to the compiler.
c_includes=()
for dir in Sources/C/*/; do c_includes+=(-I "${dir%/}"); done

out=".build/docs"
graphs="$out/symbol-graphs"
mkdir -p "$out"
failed=0
for catalog in "${catalogs[@]}"; do
  module="$(basename "$catalog" .docc)"
  rm -rf "$graphs/$module"
  mkdir -p "$graphs/$module"
  if ! "$extract" -module-name "$module" -target "$target" -I "$modules" "${c_includes[@]}" \
       -module-cache-path "$bin/ModuleCache" -minimum-access-level public -skip-inherited-docs \
       -output-dir "$graphs/$module" 2>"$graphs/$module.log"; then
    cat "$graphs/$module.log" >&2; echo "build-docs: $module: no symbol graph" >&2; failed=1; continue
  fi
  if "$docc" convert "$catalog" --additional-symbol-graph-dir "$graphs/$module" \
       --output-path "$out/$module.doccarchive" --fallback-display-name "$module" \
       --fallback-bundle-identifier "org.bandkit.$module" --warnings-as-errors >"$out/$module.log" 2>&1; then
    echo "build-docs: $module → $out/$module.doccarchive"
  else
    cat "$out/$module.log" >&2; echo "build-docs: $module: docc convert failed ($catalog)" >&2; failed=1
  fi
done

# The articles' code: every ```swift block that begins with an import is a program of its own.
echo "==> type-checking the catalogs' code"
snippets="$out/snippets"
rm -rf "$snippets"
mkdir -p "$snippets"
python3 - "$snippets" "${catalogs[@]}" <<'PY'
import pathlib, re, sys
out = pathlib.Path(sys.argv[1])
for catalog in sys.argv[2:]:
    for article in sorted(pathlib.Path(catalog).glob("*.md")):
        blocks = re.findall(r"^```swift\n(.*?)^```", article.read_text(), re.S | re.M)
        for index, code in enumerate(blocks):
            if not code.lstrip().startswith("import "):
                continue
            name = f"{pathlib.Path(catalog).stem}-{article.stem}-{index}"
            (out / name).mkdir()
            (out / name / "main.swift").write_text(f"// {article}, block {index + 1}\n" + code)
PY
checked=0
for program in "$snippets"/*/main.swift; do
  [ -e "$program" ] || continue
  checked=$((checked + 1))
  if ! swiftc -typecheck -swift-version 6 -I "$modules" "${c_includes[@]}" -module-cache-path "$bin/ModuleCache" \
       "$program" >"${program%.swift}.log" 2>&1; then
    echo "build-docs: $(head -1 "$program" | cut -c4-) does not compile:" >&2
    cat "${program%.swift}.log" >&2
    failed=1
  fi
done
echo "build-docs: ${#catalogs[@]} catalogs, $checked code blocks type-checked"
exit "$failed"
