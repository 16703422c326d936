# The checks' Python venv (PyPI packages the tests read with), sourced by the checks that need one.
#
#   checks_venv PACKAGE==VERSION…   → makes .build/checks-venv once, installs the pinned packages
#                                     into it (a no-op when they are there), sets $venv to it
# Every package is pinned, so a new release on PyPI cannot change what a check runs against.
checks_venv() {
  venv=".build/checks-venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q "$@"
}
