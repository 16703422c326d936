# Debian packages BandKit needs; sourced by the other scripts.
BUILD_PACKAGES=(libbluetooth-dev libsqlite3-dev libssl-dev libexpat1-dev zlib1g-dev libpq-dev libmicrohttpd-dev)
# tshark: the independent decoder the tests cross-check against; sqlite3: the bench baseline;
# python3: the raw-socket reader in Tests/checks/bandsim-serve.sh; postgresql: the throwaway
# cluster Tests/checks/postgres.sh runs the store's tests against (initdb, pg_ctl, psql);
# xmllint (libxml2-utils): SVG validation in HealthCommandTests; chromium, curl: Tests/checks/dashboard.sh.
# python3-venv: the PyPI readers (gpxpy, fitdecode) of Tests/checks/workout-export.sh.
TEST_PACKAGES=(tshark sqlite3 python3 postgresql libxml2-utils chromium curl python3-venv)
# The radio path test (Tests/radio): QEMU, a static busybox for the guest's initramfs, BlueZ's
# tools (btvirt virtual controllers, btmon capture, hcitool), kmod (modprobe/depmod), cpio;
# python3-cryptography: the P-256 that Tests/radio/h4-relay.py answers for btvirt (stages 40, 45).
RADIO_PACKAGES=(qemu-system-x86 busybox-static bluez bluez-test-tools kmod cpio python3-cryptography)
# The firmware image on an emulated Cortex-M4 (Tests/checks/firmware-qemu.sh): QEMU's ARM system
# emulator (mps2-an386); the image is built by the Swift toolchain (swiftc, clang, ld.lld) and links
# libgcc from gcc-arm-none-eabi for software double-precision arithmetic (the band's sensor model).
FIRMWARE_PACKAGES=(qemu-system-arm python3 gcc-arm-none-eabi)
# systemd: `systemd-analyze verify` and `systemd-sysusers --dry-run` on the gateway's units (Tests/checks/systemd.sh).
TEST_PACKAGES+=(systemd)
