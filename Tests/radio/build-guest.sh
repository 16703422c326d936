#!/usr/bin/env bash
# build-guest.sh WORKDIR: a bootable guest for the radio test, in WORKDIR:
#   vmlinuz            Debian's stock kernel (has Bluetooth, hci_vhci, 9p, AF_ALG)
#   initramfs.cpio.gz  static busybox + the modules below + /init (see guest-init.sh)
# The kernel package is fetched with `apt-get download` (no install) and unpacked once per
# version under WORKDIR/kernel; everything else is rebuilt every run (seconds).
set -euo pipefail
work=$1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work/kernel"

# 1. The kernel package linux-image-amd64 currently points at.
package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
[ -n "$package" ] || { echo "build-guest: cannot resolve linux-image-amd64 (apt-get update?)" >&2; exit 1; }
root=$work/kernel/$package
if [ ! -d "$root/boot" ]; then
  rm -rf "$work/kernel"/*
  (cd "$work/kernel" && apt-get download -q "$package" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
  deb=$(ls "$work/kernel/$package"_*.deb)
  mkdir -p "$root"
  dpkg-deb -x "$deb" "$root"
  rm -f "$deb"
fi
version=$(ls "$root/lib/modules" | head -1)
[ -f "$root/lib/modules/$version/modules.dep" ] || depmod -b "$root" "$version"
cp "$root/boot/vmlinuz-$version" "$work/vmlinuz"

# 2. Modules, each after its dependencies (modprobe resolves them against the unpacked tree).
#    9p over virtio: the host's root and the output directory. bluetooth + hci_vhci: btvirt's
#    virtual controllers. Crypto: SMP needs ECDH (ecdh_generic) and AES-CMAC; the kernel's
#    ECDH self-test needs a default RNG (drbg, which wants sha512 and ctr); btvirt's emulated
#    controller does its own AES through AF_ALG (af_alg, algif_skcipher, algif_hash, ecb, cmac).
#    virtio_console: the port that carries a host-side band's H4 into the guest (stage 45).
wanted="virtio_pci virtio_console 9pnet_virtio 9p sha512_generic ctr drbg ecb cmac af_alg algif_hash algif_skcipher ecdh_generic bluetooth hci_vhci"
initramfs=$work/initramfs
rm -rf "$initramfs"
mkdir -p "$initramfs"/{bin,dev,proc,sys,host,modules}
: > "$initramfs/modules/load-order"
for module in $wanted; do
  # Lines look like "insmod /path/x.ko" (or "builtin x"): keep each file once, in order. The
  # path is the rest of the line: the checkout's path may hold spaces.
  modprobe -d "$root" -S "$version" --show-depends "$module" | sed -n 's/^insmod \(.*[^ ]\) *$/\1/p' |
  while read -r path; do
    name=$(basename "$path")
    grep -qx "$name" "$initramfs/modules/load-order" && continue
    cp "$path" "$initramfs/modules/$name"
    echo "$name" >> "$initramfs/modules/load-order"
  done
done

# 3. Busybox and /init.
cp "$(command -v busybox)" "$initramfs/bin/busybox"
for applet in sh mount mkdir insmod cat echo chroot poweroff sync sed; do ln -s busybox "$initramfs/bin/$applet"; done
install -m 0755 "$here/guest-init.sh" "$initramfs/init"

(cd "$initramfs" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initramfs.cpio.gz"
echo "build-guest: $package ($version), $(wc -l < "$initramfs/modules/load-order") modules, initramfs $(du -k "$work/initramfs.cpio.gz" | cut -f1) KiB"
