#!/usr/bin/env bash
# The real radio path (what unit tests with scripted sockets cannot show): BandBlueZ, band and
# bandsim on the kernel's Bluetooth stack in a QEMU guest with virtual controllers. See
# Tests/radio/run.sh.
exec bash "$(dirname "$0")/../radio/run.sh"
