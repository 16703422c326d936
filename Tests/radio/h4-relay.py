#!/usr/bin/env python3
"""h4-relay.py (--listen PORT | --port DEVICE) --controller SOCKET: joins a band's H4 byte stream
to btvirt's controller server socket (`btvirt -s`, e.g. /tmp/bt-server-le: one fresh emulated
controller per connection, on the same virtual radio as the guest kernel's hciN).

  --listen PORT   the band side connects to 127.0.0.1:PORT (bandsim --hci-controller tcp:…);
                  one band at a time
  --port DEVICE   the band side is a virtio-serial port (/dev/vportNpM) whose host end QEMU joins
                  to a chardev: bandsim or the chip's UART0 on the host, outside the guest

Each band connection gets its own controller connection, closed when the band goes (a band that
restarts meets a controller fresh from power-on, as a chip reset would). Towards btvirt each H4
packet (command 0x01, ACL 0x02) is sent whole: btvirt 5.66 parses a packet header only when it
arrives in one read. Anything else from the band ends that connection with the byte offset
named. Runs until killed; prints one line per connection to stdout.
"""
import argparse
import os
import select
import socket
import sys
import time

HEADER = {0x01: (3, lambda h: h[2]), 0x02: (4, lambda h: h[2] | h[3] << 8)}


class Framer:
    """Cuts the band's byte stream into whole H4 packets."""

    def __init__(self):
        self.buffer = bytearray()
        self.offset = 0  # stream offset of buffer[0], for error messages

    def feed(self, data):
        self.buffer += data
        packets = []
        while self.buffer:
            kind = self.buffer[0]
            if kind not in HEADER:
                raise ValueError(f"byte {self.offset}: H4 packet type 0x{kind:02x} is neither command (0x01) nor ACL (0x02)")
            size, length = HEADER[kind]
            if len(self.buffer) < 1 + size:
                break
            total = 1 + size + length(self.buffer[1:1 + size])
            if len(self.buffer) < total:
                break
            packets.append(bytes(self.buffer[:total]))
            del self.buffer[:total]
            self.offset += total
        return packets


def relay(band_read, band_write, band_fd, controller_path, say):
    """Relays until the band or the controller ends; returns why."""
    controller = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        controller.connect(controller_path)
    except OSError as error:
        return f"cannot reach the controller at {controller_path}: {error}"
    framer = Framer()
    try:
        while True:
            readable, _, _ = select.select([band_fd, controller], [], [], 1.0)
            if band_fd in readable:
                data = band_read()
                if not data:
                    return "the band side closed"
                try:
                    for packet in framer.feed(data):
                        controller.sendall(packet)
                except ValueError as error:
                    return f"garbage from the band side: {error}"
            if controller in readable:
                data = controller.recv(4096)
                if not data:
                    return "the controller closed"
                band_write(data)
    except OSError as error:
        return f"{error}"
    finally:
        controller.close()


def serve_tcp(port, controller_path, say):
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(1)
    say(f"listening on 127.0.0.1:{port} for the band side")
    while True:
        band, peer = server.accept()
        say(f"band side connected from {peer[0]}:{peer[1]}")
        why = relay(lambda: band.recv(4096), band.sendall, band, controller_path, say)
        band.close()
        say(f"band side gone: {why}")


def serve_port(device, controller_path, say):
    """A virtio-serial port reads 0 bytes while its host end is closed (and polls as hung up):
    wait for the first bytes, relay, and start over when the host end closes."""
    fd = os.open(device, os.O_RDWR | os.O_NOCTTY)
    say(f"waiting on {device} for the band side")

    def write_all(data):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]

    first = [b""]

    def read():
        if first[0]:
            data, first[0] = first[0], b""
            return data
        return os.read(fd, 4096)

    while True:
        data = os.read(fd, 4096)
        if not data:
            time.sleep(0.1)
            continue
        first[0] = data
        say(f"band side connected on {device}")
        why = relay(read, write_all, fd, controller_path, say)
        say(f"band side gone: {why}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--listen", type=int, metavar="PORT")
    where.add_argument("--port", metavar="DEVICE")
    parser.add_argument("--controller", required=True, metavar="SOCKET")
    options = parser.parse_args()

    def say(line):
        print(f"h4-relay: {line}", flush=True)

    try:
        if options.listen is not None:
            serve_tcp(options.listen, options.controller, say)
        else:
            serve_port(options.port, options.controller, say)
    except OSError as error:
        print(f"h4-relay: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
