#!/usr/bin/env bash
# The test command (README, second command; .ci/run calls it).
# Installs missing Debian packages (as root) or prints the apt-get line, builds, runs the
# unit and end-to-end tests, then the cross-checks in Tests/checks/*.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"

echo "==> manifest: declared dependencies = imports"
python3 scripts/check-manifest.py

echo "==> swift build"
swift build --build-tests 2>&1 | grep -Ev "^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write" || true
echo "==> swift test"
log=$(mktemp /tmp/bandkit-swift-test.XXXXXX.log)
set +e
swift test --skip-build >"$log" 2>&1
status=$?
set -e
# Failures in full, then the runners' own closing lines.
grep -E "✘|error:|Fatal error|crashed" "$log" | head -200 || true
grep -E "^(✔|✘) Test run with|^Test Suite 'All tests'|Executed [0-9]+ tests" "$log" | tail -5 || true
if [ "$status" -ne 0 ]; then
  echo "swift test failed (exit $status); full log: $log" >&2
  exit "$status"
fi

checks_passed=0
checks_failed=0
for check in Tests/checks/*.sh; do
  [ -e "$check" ] || continue
  echo "==> $check"
  if bash "$check"; then checks_passed=$((checks_passed + 1)); else checks_failed=$((checks_failed + 1)); echo "FAILED: $check" >&2; fi
done
echo "checks: ${checks_passed} passed, ${checks_failed} failed"
[ "$checks_failed" -eq 0 ]
