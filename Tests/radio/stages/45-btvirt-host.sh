#!/bin/sh
# Stage 45: stage 40 with the band on the host, outside the guest: bandsim serve
# --hci-controller on the host (host-band.sh, which run.sh starts) speaks H4 through QEMU's
# chardev socket and the guest's virtio-serial port bandkit.h4, joined to btvirt's LE controller
# here. The chip's path: qemu-system-arm on the host, its UART0 on that chardev, stands in for
# bandsim (RADIO_HOST_BAND).
RADIO_BAND_SIDE=host exec sh "$(dirname "$0")/40-btvirt.sh"
