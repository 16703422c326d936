#!/usr/bin/env bash
# Before/after proof that a change keeps behaviour and bytes: builds REV (default: main's merge
# base with HEAD) in a temporary worktree and this work tree, both in release, takes
# scripts/behaviour-snapshot.sh of each (with this checkout's snapshot script, so both are
# measured the same way), and diffs them. Exit 0: identical; 1: the diff is printed.
#
#   bash scripts/behaviour-compare.sh [REV]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
rev=${1:-$(git merge-base main HEAD)}
work="$(mktemp -d)"
base="$root/.build/behaviour-base"      # beside the checkout's own build, so ../shared resolves the same
cleanup() { git worktree remove --force "$base" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
git worktree remove --force "$base" 2>/dev/null || true
git worktree add --detach -q "$base" "$rev"
echo "==> building $rev (before) and the work tree (after), release"
(cd "$base" && swift build -c release --scratch-path "$root/.build/behaviour-base-build" 2>&1 | grep -E "error|Build complete" | tail -2)
swift build -c release 2>&1 | grep -E "error|Build complete" | tail -2
bash scripts/behaviour-snapshot.sh "$work/before" "$root/.build/behaviour-base-build/release"
bash scripts/behaviour-snapshot.sh "$work/after" "$(swift build -c release --show-bin-path)"
if diff -r "$work/before" "$work/after"; then
  echo "behaviour-compare: identical ($rev → work tree)"
else
  echo "behaviour-compare: outputs differ ($rev → work tree)" >&2
  exit 1
fi
