#!/usr/bin/env python3
"""The module graph in docs/architecture.md, generated from Package.swift so it cannot drift.

Reads the resolved manifest (`swift package dump-package`: targets, their dependencies, paths and
products) and renders a Markdown section: the products, then per folder (the directory that holds
the module folders, e.g. Sources/Core) each module, its kind, its layer (0 = imports no module of
this package, otherwise one more than the highest module it imports) and what it imports, and a
Mermaid graph grouped by folder whose arrows are the transitive reduction of the imports (an arrow
implied by a longer path is left out, so the picture stays legible; the tables list every import).
Nothing about the package is written in this script: folders, modules and layers all come from
the dump, so a new target or a moved folder changes the output and nothing else.

The section sits between the markers below in docs/architecture.md.

    python3 scripts/module-graph.py            # print the section
    python3 scripts/module-graph.py --check    # exit 1, naming what differs, when the doc has drifted
    python3 scripts/module-graph.py --write    # rewrite the section in the doc
    --dump FILE   read the dump-package JSON from FILE ('-' = stdin) instead of running swift
    --doc FILE    the document holding the markers (default docs/architecture.md)
"""
import argparse
import difflib
import json
import os
import subprocess
import sys

BEGIN = "<!-- module-graph:begin -->"
END = "<!-- module-graph:end -->"

# SwiftPM's own search order for a target without an explicit `path:`.
DEFAULT_SOURCE_ROOTS = ("Sources", "Source", "src", "srcs")
DEFAULT_TEST_ROOTS = ("Tests",)

KIND_LABEL = {
    "regular": "library",
    "executable": "executable",
    "system": "C system library",
    "test": "test",
    "macro": "macro",
    "plugin": "plugin",
    "binary": "binary",
}


def target_path(target, root):
    """Where the target's sources live, relative to the package root."""
    if target.get("path"):
        return os.path.normpath(target["path"])
    roots = DEFAULT_TEST_ROOTS if target["type"] == "test" else DEFAULT_SOURCE_ROOTS
    for base in roots:
        candidate = os.path.join(base, target["name"])
        if os.path.isdir(os.path.join(root, candidate)):
            return candidate
    return os.path.join(roots[0], target["name"])


def dependency_name(dependency):
    """(name, is_in_package, condition note) for one entry of a target's dependencies."""
    for kind in ("byName", "target"):
        if kind in dependency:
            name, condition = dependency[kind][0], dependency[kind][-1]
            return name, kind, condition_note(condition)
    if "product" in dependency:
        entry = dependency["product"]
        name, package = entry[0], entry[1] if len(entry) > 1 else None
        label = f"{package}/{name}" if package else name
        return label, "product", condition_note(entry[-1] if len(entry) > 2 else None)
    raise ValueError(f"unknown dependency form: {json.dumps(dependency)}")


def condition_note(condition):
    if not isinstance(condition, dict):
        return ""
    parts = []
    # dump-package writes platform names as plain strings ("linux", "macos").
    platforms = [p if isinstance(p, str) else p.get("name", "") for p in condition.get("platformNames") or []]
    if platforms:
        parts.append(", ".join(platforms))
    traits = condition.get("traits") or []
    if traits:
        parts.append("trait " + ", ".join(traits))
    return f" ({'; '.join(parts)})" if parts else ""


class Graph:
    def __init__(self, dump, root):
        self.targets = {t["name"]: t for t in dump["targets"]}
        self.order = [t["name"] for t in dump["targets"]]
        self.path = {name: target_path(t, root) for name, t in self.targets.items()}
        self.imports = {}
        self.import_notes = {}
        self.external = {}
        for name, target in self.targets.items():
            inside, outside, notes = [], [], {}
            for dependency in target["dependencies"]:
                dep, kind, note = dependency_name(dependency)
                if kind != "product" and dep in self.targets:
                    inside.append(dep)
                    notes.setdefault(dep, set()).add(note)
                else:
                    outside.append(dep + note)
            self.imports[name] = sorted(set(inside))
            # A module imported both always and under a condition is simply imported.
            self.import_notes[name] = {dep: "" if "" in found else "".join(sorted(found))
                                       for dep, found in notes.items()}
            self.external[name] = sorted(set(outside))
        self.products = {}
        for product in dump.get("products", []):
            kind = next(iter(product["type"])) if isinstance(product["type"], dict) else str(product["type"])
            self.products[product["name"]] = (kind, product["targets"])
        self.layer = {}
        for name in self.order:
            self._layer_of(name, ())

    def _layer_of(self, name, visiting):
        if name in self.layer:
            return self.layer[name]
        if name in visiting:
            raise ValueError("dependency cycle: " + " → ".join(visiting + (name,)))
        deps = self.imports[name]
        value = 0 if not deps else 1 + max(self._layer_of(d, visiting + (name,)) for d in deps)
        self.layer[name] = value
        return value

    def folder(self, name):
        return os.path.dirname(self.path[name]) or "."

    def graph_modules(self):
        """The modules the graph shows: everything but test targets."""
        return [n for n in self.order if self.targets[n]["type"] != "test"]

    def reachable(self, name, skip_edge):
        seen, stack = set(), [d for d in self.imports[name] if d != skip_edge]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            stack.extend(self.imports[current])
        return seen

    def reduced_imports(self, name):
        return [d for d in self.imports[name] if d not in self.reachable(name, d)]

    def products_of(self, name):
        return sorted(p for p, (_, targets) in self.products.items() if name in targets)


def mermaid_id(folder):
    # Prefixed so a folder can never share an id with a module of the same name.
    return "dir_" + "".join(ch if ch.isalnum() else "_" for ch in folder)


def render(graph):
    modules = graph.graph_modules()
    folders = {}
    for name in modules:
        folders.setdefault(graph.folder(name), []).append(name)
    # Bottom-up: a folder whose highest module sits lower in the layers comes first (a folder of
    # executables, whose framework sits at layer 0 beside them, still comes last).
    folder_order = sorted(folders, key=lambda f: (max(graph.layer[n] for n in folders[f]),
                                                  min(graph.layer[n] for n in folders[f]), f))
    out = [BEGIN,
           "<!-- Generated by scripts/module-graph.py from `swift package dump-package`; do not edit by hand:",
           "     run `python3 scripts/module-graph.py --write` after changing Package.swift. -->",
           ""]
    tests = [n for n in graph.order if graph.targets[n]["type"] == "test"]
    out.append(f"{len(modules)} modules in {len(folders)} folders, {len(graph.products)} products, "
               f"{len(tests)} test targets. Layer 0 imports no module of this package; every other "
               "module sits one layer above the highest module it imports.")
    out.append("")
    if graph.products:
        out.append("**Products**")
        out.append("")
        out.append("| Product | Kind | Modules |")
        out.append("|---|---|---|")
        for product, (kind, targets) in sorted(graph.products.items(), key=lambda p: (p[1][0], p[0])):
            out.append(f"| {product} | {kind} | {', '.join(targets)} |")
        out.append("")
    for folder in folder_order:
        out.append(f"**{folder}/**")
        out.append("")
        out.append("| Module | Kind | Layer | Imports |")
        out.append("|---|---|---|---|")
        for name in sorted(folders[folder], key=lambda n: (graph.layer[n], n)):
            target = graph.targets[name]
            kind = KIND_LABEL.get(target["type"], target["type"])
            if target["type"] == "system" and target.get("providers"):
                apt = [pkg for provider in target["providers"] for group in provider.get("apt", [])
                       for pkg in (group if isinstance(group, list) else [group])]
                if apt:
                    kind += f" ({', '.join(apt)})"
            imports = [d + graph.import_notes[name].get(d, "") for d in graph.imports[name]]
            imports += [f"{e} (external)" for e in graph.external[name]]
            out.append(f"| {name} | {kind} | {graph.layer[name]} | {', '.join(imports) or '—'} |")
        out.append("")
    out.append("```mermaid")
    out.append("flowchart BT")
    for folder in folder_order:
        out.append(f'  subgraph {mermaid_id(folder)}["{folder}/"]')
        for name in sorted(folders[folder], key=lambda n: (graph.layer[n], n)):
            out.append(f"    {name}")
        out.append("  end")
    for folder in folder_order:
        for name in sorted(folders[folder], key=lambda n: (graph.layer[n], n)):
            for dep in graph.reduced_imports(name):
                out.append(f"  {name} --> {dep}")
    out.append("```")
    out.append(END)
    return out


def split_doc(text, doc_path):
    lines = text.split("\n")
    try:
        start = lines.index(BEGIN)
        end = lines.index(END, start)
    except ValueError:
        raise SystemExit(f"module-graph: {doc_path} has no '{BEGIN}' … '{END}' section")
    return lines[:start], lines[start:end + 1], lines[end + 1:]


def load_dump(source, root):
    if source == "-":
        return json.load(sys.stdin)
    if source:
        with open(source, encoding="utf-8") as handle:
            return json.load(handle)
    result = subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                            capture_output=True, text=True)
    return json.loads(result.stdout)


def describe_drift(current, wanted):
    """One line per module whose row or arrows changed, then the unified diff."""
    removed = [l for l in current if l not in wanted]
    added = [l for l in wanted if l not in current]
    named = set()
    for line in removed + added:
        if line.startswith("| ") and not line.startswith("| Module") and not line.startswith("|---"):
            named.add(line.split("|")[1].strip())
        elif "-->" in line:
            named.add(line.strip().split(" ")[0])
    summary = ", ".join(sorted(named)) if named else "the section's text"
    diff = difflib.unified_diff(current, wanted, "documented", "from Package.swift", lineterm="")
    return summary, "\n".join(diff)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    parser.add_argument("--dump")
    parser.add_argument("--doc")
    args = parser.parse_args()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    doc_path = args.doc or os.path.join(root, "docs", "architecture.md")
    try:
        graph = Graph(load_dump(args.dump, root), root)
    except (ValueError, KeyError, json.JSONDecodeError) as error:
        print(f"module-graph: cannot read the manifest dump: {error}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as error:
        print(f"module-graph: swift package dump-package failed (exit {error.returncode}):\n{error.stderr}",
              file=sys.stderr)
        return 1
    section = render(graph)
    if not (args.check or args.write):
        print("\n".join(section))
        return 0

    with open(doc_path, encoding="utf-8") as handle:
        before, current, after = split_doc(handle.read(), doc_path)
    if args.check:
        if current == section:
            print(f"module-graph: {os.path.relpath(doc_path, root)} matches Package.swift "
                  f"({len(graph.graph_modules())} modules)")
            return 0
        summary, diff = describe_drift(current, section)
        print(f"module-graph: {os.path.relpath(doc_path, root)} has drifted from Package.swift: {summary}")
        print(diff)
        print("module-graph: run `python3 scripts/module-graph.py --write` and commit the result", file=sys.stderr)
        return 1
    with open(doc_path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(before + section + after))
    print(f"module-graph: wrote {len(section)} lines into {os.path.relpath(doc_path, root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
