# The checks' Python venv for test-only PyPI tools (sourced; needs the checkout root as the
# current directory).
#
#   checks_venv PACKAGE…   → makes .build/checks-venv once, installs the pinned PACKAGEs into it
#                            (pip does nothing for those already there), and sets $venv
checks_venv() {
  venv=".build/checks-venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q "$@"
}
