#!/usr/bin/env python3
"""h4-relay.py (--listen PORT | --port DEVICE) --controller SOCKET [--hold-history-after N]: joins a band's H4 byte stream
to btvirt's controller server socket (`btvirt -s`, e.g. /tmp/bt-server-le: one fresh emulated
controller per connection, on the same virtual radio as the guest kernel's hciN).

  --listen PORT   the band side connects to 127.0.0.1:PORT (bandsim --hci-controller tcp:…);
                  one band at a time
  --port DEVICE   the band side is a virtio-serial port (/dev/vportNpM) whose host end QEMU joins
                  to a chardev: bandsim or the chip's UART0 on the host, outside the guest

Each band connection gets its own controller connection, closed when the band goes (a band that
restarts meets a controller fresh from power-on, as a chip reset would). Towards btvirt each H4
packet (command 0x01, ACL 0x02) is sent whole: btvirt 5.66 parses a packet header only when it
arrives in one read. btvirt 5.66 lacks LE Read Local P-256 Public Key and LE Generate DHKey (it
answers Unknown HCI Command): the relay answers those two itself, as a controller would, with
its own P-256 key pair per connection (the kernel's hosts never send them: they do ECDH themselves). Anything else from the band ends that connection with the byte offset
named. Runs until killed; prints one line per connection to stdout.

--hold-history-after N (armed by SIGUSR1, once): after the band has sent N History Data notifications
(ATT handle 0x0033 on the ATT channel), the relay holds every further ACL packet from the band
and says "holding" — the transfer stands still inside its slice, whatever the band's pace, so a
link dropped now drops it there — until the controller reports that link's Disconnection
Complete; then the held packets are discarded (the link they were for is gone: its buffers are
the band's again, Core Vol 4 Part E §4.3) and the relay says how many.
"""
import argparse
import os
import secrets
import select
import signal
import socket
import sys
import time

try:  # Debian's python3-cryptography: P-256 in C, fast enough under emulation
    from cryptography.hazmat.primitives.asymmetric import ec
except ImportError:
    ec = None

HEADER = {0x01: (3, lambda h: h[2]), 0x02: (4, lambda h: h[2] | h[3] << 8)}

# NIST P-256, for the two LE commands btvirt 5.66 answers with Unknown HCI Command.
P = 2**256 - 2**224 + 2**192 + 2**96 - 1
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
     0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
READ_LOCAL_P256, GENERATE_DHKEY = 0x2025, 0x2026


def on_curve(point):
    x, y = point
    return 0 <= x < P and 0 <= y < P and (y * y - (x * x * x - 3 * x + B)) % P == 0


def add(p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P == 0:
        return None
    if p1 == p2:
        slope = (3 * x1 * x1 - 3) * pow(2 * y1, -1, P) % P
    else:
        slope = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (slope * slope - x1 - x2) % P
    return x3, (slope * (x1 - x3) - y1) % P


def multiply(k, point):
    result = None
    while k:
        if k & 1:
            result = add(result, point)
        point = add(point, point)
        k >>= 1
    return result


class P256Controller:
    """LE Read Local P-256 Public Key and LE Generate DHKey, answered as a controller would
    (Command Status, then the LE Meta event), since btvirt 5.66 does not implement them."""

    def __init__(self):
        self.secret = None

    @staticmethod
    def status(opcode, status=0):
        return bytes([0x04, 0x0F, 4, status, 1, opcode & 0xFF, opcode >> 8])

    @staticmethod
    def meta(subevent, body):
        return bytes([0x04, 0x3E, 1 + len(body), subevent]) + body

    def answer(self, packet):
        """The controller's reply to a command packet it handles here, else None."""
        if packet[0] != 0x01:
            return None
        opcode = packet[1] | packet[2] << 8
        if opcode == READ_LOCAL_P256:
            if ec is not None:
                self.secret = ec.generate_private_key(ec.SECP256R1())
                numbers = self.secret.public_key().public_numbers()
                x, y = numbers.x, numbers.y
            else:
                self.secret = secrets.randbelow(N - 1) + 1
                x, y = multiply(self.secret, G)
            return self.status(opcode) + self.meta(0x08, bytes([0]) + x.to_bytes(32, "little") + y.to_bytes(32, "little"))
        if opcode == GENERATE_DHKEY:
            parameters = packet[4:]
            if len(parameters) != 64:
                return self.status(opcode, 0x12)
            remote = (int.from_bytes(parameters[:32], "little"), int.from_bytes(parameters[32:], "little"))
            if self.secret is None:
                return self.status(opcode, 0x0C)  # Command Disallowed: no local key pair yet
            if not on_curve(remote):
                return self.status(opcode) + self.meta(0x09, bytes([0x12]) + bytes(32))
            if ec is not None:
                peer = ec.EllipticCurvePublicNumbers(remote[0], remote[1], ec.SECP256R1()).public_key()
                x = int.from_bytes(self.secret.exchange(ec.ECDH(), peer), "big")
            else:
                x, _ = multiply(self.secret, remote)
            return self.status(opcode) + self.meta(0x09, bytes([0]) + x.to_bytes(32, "little"))
        return None


HISTORY_DATA_HANDLE = 0x0033


class HistoryHold:
    """--hold-history-after: counts the band's History Data notifications and, from the Nth on,
    holds its ACL packets until the controller's Disconnection Complete for that link."""

    def __init__(self, after, say):
        self.after, self.say = after, say
        self.seen = 0
        self.held = None        # packets held, while holding
        self.handle = None
        self.armed = False
        self.done = after is None

    def arm(self, *_):
        if not self.done and not self.armed:
            self.armed = True
            self.say(f"armed: holding after {self.after} History Data notifications")

    def connection_ended(self):
        if self.held is not None:
            self.say(f"the band side went while holding: {len(self.held)} held packet(s) discarded")
            self.held, self.done = None, True

    def takes(self, packet):
        """Whether the relay keeps PACKET (from the band) instead of sending it on."""
        if self.done or not self.armed or packet[0] != 0x02:
            return False
        if self.held is not None:
            self.held.append(packet)
            return True
        flags_handle = packet[1] | packet[2] << 8
        first = (flags_handle >> 12) & 0x3 in (0b00, 0b10)
        if first and len(packet) >= 12 and packet[7] | packet[8] << 8 == 0x0004 and packet[9] == 0x1B \
                and packet[10] | packet[11] << 8 == HISTORY_DATA_HANDLE:
            self.seen += 1
            if self.seen == self.after:
                self.handle = flags_handle & 0x0FFF
                self.held = []
                self.say(f"holding the band's ACL data on handle 0x{self.handle:03x} after {self.seen} History Data notifications")
        return False

    def controller_said(self, data):
        """Watches the controller's bytes for the held link's Disconnection Complete (event 0x05);
        an event split across reads is missed, which only keeps the hold."""
        if self.held is None:
            return
        at = data.find(bytes([0x04, 0x05, 4, 0x00, self.handle & 0xFF, self.handle >> 8]))
        if at >= 0:
            self.say(f"link 0x{self.handle:03x} disconnected: {len(self.held)} held packet(s) discarded")
            self.held, self.done = None, True


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


def relay(band_read, band_write, band_fd, controller_path, say, hold, initial=b""):
    """Relays until the band or the controller ends; returns why. INITIAL: bytes the band
    already sent."""
    controller = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        controller.connect(controller_path)
    except OSError as error:
        return f"cannot reach the controller at {controller_path}: {error}"
    framer = Framer()
    p256 = P256Controller()
    data = initial
    try:
        while True:
            if data:
                try:
                    for packet in framer.feed(data):
                        reply = p256.answer(packet)
                        if reply is not None:
                            band_write(reply)
                        elif not hold.takes(packet):
                            controller.sendall(packet)
                except ValueError as error:
                    return f"garbage from the band side: {error}"
            readable, _, _ = select.select([band_fd, controller], [], [], 1.0)
            data = b""
            if band_fd in readable:
                data = band_read()
                if not data:
                    return "the band side closed"
            if controller in readable:
                events = controller.recv(4096)
                if not events:
                    return "the controller closed"
                hold.controller_said(events)
                band_write(events)
    except OSError as error:
        return f"{error}"
    finally:
        hold.connection_ended()
        controller.close()


def serve_tcp(port, controller_path, say, hold):
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(1)
    say(f"listening on 127.0.0.1:{port} for the band side")
    while True:
        band, peer = server.accept()
        say(f"band side connected from {peer[0]}:{peer[1]}")
        why = relay(lambda: band.recv(4096), band.sendall, band, controller_path, say, hold)
        band.close()
        say(f"band side gone: {why}")


def serve_port(device, controller_path, say, hold):
    """A virtio-serial port reads 0 bytes while its host end is closed (and polls as hung up):
    wait for the first bytes, relay, and start over when the host end closes."""
    fd = os.open(device, os.O_RDWR | os.O_NOCTTY)
    say(f"waiting on {device} for the band side")

    def write_all(data):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]

    while True:
        data = os.read(fd, 4096)
        if not data:
            time.sleep(0.1)
            continue
        say(f"band side connected on {device}")
        why = relay(lambda: os.read(fd, 4096), write_all, fd, controller_path, say, hold, initial=data)
        say(f"band side gone: {why}")
        # A port has no connection to close: until its host end closes, what the band sends
        # belongs to the stream that went wrong, not to a new controller.
        while os.read(fd, 4096):
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--listen", type=int, metavar="PORT")
    where.add_argument("--port", metavar="DEVICE")
    parser.add_argument("--controller", required=True, metavar="SOCKET")
    parser.add_argument("--hold-history-after", type=int, metavar="N")
    options = parser.parse_args()

    def say(line):
        print(f"h4-relay: {line}", flush=True)

    if ec is not None:
        # The first key pair loads OpenSSL, seconds under emulation: not while a band waits
        # (it gives a controller 2 s per command).
        ec.generate_private_key(ec.SECP256R1()).exchange(ec.ECDH(), ec.generate_private_key(ec.SECP256R1()).public_key())
    if options.hold_history_after is not None and options.hold_history_after < 1:
        parser.error("--hold-history-after: N must be at least 1")
    hold = HistoryHold(options.hold_history_after, say)
    signal.signal(signal.SIGUSR1, hold.arm)
    try:
        if options.listen is not None:
            serve_tcp(options.listen, options.controller, say, hold)
        else:
            serve_port(options.port, options.controller, say, hold)
    except OSError as error:
        print(f"h4-relay: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
