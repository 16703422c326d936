#!/usr/bin/env bash
# The gateway's systemd units (dist/systemd/) as systemd itself reads them: `systemd-analyze verify`
# on the system unit and, under a user manager's view, on the user unit, with any diagnostic at all
# (an unknown or misspelt key, a bad value, a missing target) failing the check, not only a
# non-zero exit. The units' ExecStart names where band is installed (/usr/local/bin/band,
# ~/.local/bin/band); verify checks that the command is executable, so each unit is checked as a
# copy whose ExecStart names the built band instead (same arguments). The sysusers.d file is
# checked with systemd-sysusers --dry-run. Then the options ExecStart passes are checked against
# `band gateway --help`, so a renamed option cannot leave the units behind.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
"$root/scripts/ensure-packages.sh" systemd >/dev/null
command -v systemd-analyze >/dev/null || { echo "systemd: systemd-analyze not installed (Debian package systemd)" >&2; exit 1; }
bin="${BANDKIT_BIN:-$root/.build/debug}"
[ -x "$bin/band" ] || { echo "systemd: $bin/band not built" >&2; exit 1; }
units="$root/dist/systemd"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
# A unit's ExecStart splits at spaces, and a checkout's path may hold one: the copies name the
# built band through a link in the work directory.
ln -s "$bin/band" "$work/band"

# verify UNIT-FILE INSTALLED-PATH [--user]: a copy pointing at the built band; any output fails.
verify() {
  local unit="$1" installed="$2" mode="${3:-}"
  local copy="$work/$(basename "$unit")"
  sed "s|ExecStart=$installed |ExecStart=$work/band |" "$unit" >"$copy"
  grep -q "^ExecStart=$work/band gateway " "$copy" || { echo "systemd: $unit: ExecStart is not '$installed gateway …'" >&2; failed=1; return; }
  local output status=0
  if [ "$mode" = --user ]; then
    mkdir -p -m 0700 "$work/runtime"
    output="$(XDG_RUNTIME_DIR="$work/runtime" systemd-analyze --user verify "$copy" 2>&1)" || status=$?
  else
    output="$(systemd-analyze verify "$copy" 2>&1)" || status=$?
  fi
  if [ "$status" -ne 0 ] || [ -n "$output" ]; then
    echo "systemd: $unit: systemd-analyze verify (exit $status):" >&2
    echo "$output" >&2
    failed=1
  else
    echo "systemd: $unit verified"
  fi
  rm -f "$copy"
}
verify "$units/band-gateway.service" /usr/local/bin/band
verify "$units/user/band-gateway.service" "%h/.local/bin/band" --user

# The sysusers.d line parses and creates the user the system unit runs as.
if output="$(systemd-sysusers --dry-run "$units/bandkit.sysusers.conf" 2>&1)"; then
  if grep -q "User=bandkit" "$units/band-gateway.service" && { echo "$output" | grep -q "bandkit" || getent passwd bandkit >/dev/null; }; then
    echo "systemd: bandkit.sysusers.conf parses"
  else
    echo "systemd: bandkit.sysusers.conf does not create the unit's user bandkit:" >&2; echo "$output" >&2; failed=1
  fi
else
  echo "systemd: systemd-sysusers --dry-run bandkit.sysusers.conf failed:" >&2; echo "$output" >&2; failed=1
fi

# Every --option in the units' ExecStart is one band gateway accepts.
if help="$("$bin/band" gateway --help 2>&1)"; then
  for unit in "$units/band-gateway.service" "$units/user/band-gateway.service"; do
    for option in $(grep '^ExecStart=' "$unit" | grep -o -- '--[a-z-]*' | sort -u); do
      grep -q -- "$option" <<<"$help" || { echo "systemd: $unit: band gateway has no option $option" >&2; failed=1; }
    done
  done
  [ "$failed" -ne 0 ] || echo "systemd: ExecStart options are band gateway's"
else
  echo "systemd: 'band gateway --help' failed; the units' options cannot be checked:" >&2
  echo "$help" | tail -5 >&2
  failed=1
fi
exit "$failed"
