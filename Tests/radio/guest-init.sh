#!/bin/sh
# PID 1 of the radio test guest (busybox). Loads the modules, mounts the host's root
# read-only over 9p, fresh tmpfs over its /tmp, /run, /var/tmp and /var/lib/bluetooth, then the
# checkout (read-only) and the output directory (writable) at /run/bandkit-radio/repo and
# /run/bandkit-radio/out — after the tmpfs, so a checkout under the host's /tmp stays visible —
# then chroots into the host root and runs the script named by radio.script= on the kernel
# command line. Its exit status goes to OUT/guest-status and the console; then the guest
# powers off.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for module in $(cat /modules/load-order); do
  insmod "/modules/$module" || echo "[radio-guest] insmod $module failed"
done

# radio.NAME=VALUE words on the command line become RADIO_NAME=VALUE for the script.
environment=""
for word in $(cat /proc/cmdline); do
  case "$word" in
    radio.*=*) name=${word%%=*}; name=$(echo "${name#radio.}" | sed 'y/abcdefghijklmnopqrstuvwxyz/ABCDEFGHIJKLMNOPQRSTUVWXYZ/')
               environment="$environment RADIO_$name=${word#*=}" ;;
  esac
done
script=$(sed -n 's/.*radio\.script=\([^ ]*\).*/\1/p' /proc/cmdline)
out=$(sed -n 's/.*radio\.out=\([^ ]*\).*/\1/p' /proc/cmdline)

mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /host ||
  { echo "[radio-guest] cannot mount the host root over 9p"; poweroff -f; }
for dir in tmp run var/tmp var/lib/bluetooth; do mount -t tmpfs tmpfs "/host/$dir" 2>/dev/null; done
mkdir -p /host/run/bandkit-radio/repo /host/run/bandkit-radio/out
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose radiorepo /host/run/bandkit-radio/repo ||
  { echo "[radio-guest] cannot mount the checkout over 9p"; poweroff -f; }
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 radioout "/host$out" ||
  { echo "[radio-guest] cannot mount the output directory $out"; poweroff -f; }
for dir in proc sys dev; do mount --bind "/$dir" "/host/$dir"; done
# devtmpfs has /dev/ptmx but no /dev/pts: without the directory the mount fails and no
# pseudo-terminal can be opened (stage 30 types a passkey at band's terminal prompt).
mkdir -p /host/dev/pts
mount -t devpts -o ptmxmode=0666 devpts /host/dev/pts || echo "[radio-guest] cannot mount devpts"
mount -t debugfs debugfs /host/sys/kernel/debug 2>/dev/null

echo "[radio-guest] up after $(cut -d' ' -f1 /proc/uptime) s; running $script"
# shellcheck disable=SC2086 # $environment is a list of NAME=VALUE words
chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb $environment /bin/sh "$script"
status=$?
echo "$status" > "/host$out/guest-status"
echo "[radio-guest] script exit $status after $(cut -d' ' -f1 /proc/uptime) s"
sync
poweroff -f
