#!/usr/bin/env python3
"""Package.swift tells the truth: every dependency a target declares on another target of this
package is imported by at least one of its Swift files, and every package module a file imports
is declared by its target. Run by scripts/test.sh; exit 1 and one line per mismatch when they drift.

The manifest is read through `swift package dump-package` (the resolved JSON, not a text scan), the
imports from each target's sources (`import M`, `@testable import M`, `public/internal/package import M`,
`@_implementationOnly import M`, `import struct M.T`), `#if canImport(M)` blocks included.
Modules outside the package (Foundation, Glibc, Testing, …) are not this check's business.
It also checks which targets reach the C libraries only some programs may link (LINKED_ONLY_BY).

    python3 scripts/check-manifest.py [--graph]     # --graph: print the module graph (Mermaid) instead
"""
import json
import os
import re
import subprocess
import sys

IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|package|private|fileprivate)\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)


def default_path(target):
    if target.get("path"):
        return target["path"]
    kind = target["type"]
    return ("Tests/" if kind == "test" else "Sources/") + target["name"]


def imports_of(directory):
    found = set()
    for base, _, files in os.walk(directory):
        for name in files:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(base, name), encoding="utf-8") as source:
                for line in source:
                    match = IMPORT.match(line)
                    if match:
                        found.add(match.group(1))
    return found


# C libraries only some programs may link: the targets (tests and test support aside) that reach
# each one, directly or through other targets. A consumer of the store needs no libpq (PostgreSQL
# is opt-in: HealthStorePostgreSQL), and only the dashboard's server needs libmicrohttpd.
LINKED_ONLY_BY = {
    "CPostgres": {"HealthStorePostgreSQL", "health", "band", "bandsim"},
    "CMicroHTTPD": {"HealthHTTP", "health"},
}


def reaching(module, declared, targets):
    """The non-test targets whose dependency closure holds `module`."""
    def closure(name, seen):
        for dep in declared.get(name, ()):
            if dep not in seen:
                seen.add(dep)
                closure(dep, seen)
        return seen
    return {t["name"] for t in targets
            if t["type"] not in ("test", "system") and not t["name"].endswith("TestSupport")
            and module in closure(t["name"], set())}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    dump = subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True)
    targets = json.loads(dump.stdout)["targets"]
    names = {t["name"] for t in targets}
    declared = {}
    for target in targets:
        deps = set()
        for dep in target["dependencies"]:
            for kind in ("byName", "target"):
                if kind in dep:
                    deps.add(dep[kind][0])
        declared[target["name"]] = deps

    if "--graph" in sys.argv:
        print("```mermaid\nflowchart BT")
        for target in targets:
            if target["type"] in ("test",) or target["name"].endswith("TestSupport"):
                continue
            for dep in sorted(declared[target["name"]]):
                print(f"  {target['name']} --> {dep}")
        print("```")
        return 0

    problems = []
    for target in targets:
        if target["type"] == "system":
            continue
        name = target["name"]
        used = imports_of(default_path(target)) & names
        used.discard(name)
        for module in sorted(used - declared[name]):
            problems.append(f"{name}: imports {module}, which Package.swift does not declare")
        for module in sorted(declared[name] - used):
            problems.append(f"{name}: declares {module}, which none of its files imports")
    for module, expected in LINKED_ONLY_BY.items():
        actual = reaching(module, declared, targets)
        for name in sorted(actual - expected):
            problems.append(f"{name}: links {module}, which only {', '.join(sorted(expected))} may")
        for name in sorted(expected - actual):
            problems.append(f"{name}: expected to link {module} but does not (update LINKED_ONLY_BY)")
    for line in problems:
        print(f"check-manifest: {line}")
    if problems:
        print(f"check-manifest: {len(problems)} mismatches between Package.swift and the imports", file=sys.stderr)
        return 1
    print(f"check-manifest: {len(targets)} targets, declared dependencies = imports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
