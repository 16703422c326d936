#!/bin/sh
# Stage 45: stage 40 with the chip as the band: the hosted band image (Embedded Swift for the
# Cortex-M4 with its own BLE host, firmware-sim/board/build.sh --band) in qemu-system-arm on the
# host, outside the guest (Tests/radio/chip-band.py, started through host-band.sh, which run.sh
# starts). Its UART0 speaks H4 through QEMU's chardev socket and the guest's virtio-serial port
# bandkit.h4 to btvirt's LE controller here; kernel BlueZ on hci1 reads it with band pair, sync
# and stream. Advertising, the connection, L2CAP, LE Secure Connections with the chip's passkey,
# bonds in its flash pages and re-encryption are the chip's own: no Bluetooth is done for it.
# RADIO_HOST_BAND (run.sh) puts another band there instead, e.g. bandsim serve --hci-controller.
RADIO_BAND_SIDE=host exec sh "$(dirname "$0")/40-btvirt.sh"
