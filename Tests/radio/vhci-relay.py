#!/usr/bin/env python3
"""vhci-relay.py --controller SOCKET: one more kernel adapter (hciN, through /dev/vhci) on a
fresh btvirt controller from its server socket (`btvirt -s`, e.g. /tmp/bt-server-le), on the same
virtual radio as btvirt's own adapters, with btvirt's encryption handle mended.

Why not one of `btvirt -l3`'s adapters: btvirt (5.66, and upstream since) numbers each end of a
connection on its own controller (the lowest free handle on each), and its LE Start Encryption
sends the peer its LE Long Term Key Request with the *central's* handle. A central holding two
links (the gateway: handles 42 and 43) thus asks for encryption of its second link under a
handle the peripheral (whose only link is 42) does not know: the peripheral's kernel answers
Negative Reply for an unknown connection, btvirt drops that, and encryption never completes
(no Encryption Change, the kernel's encryption stays pending, the link stays up). A real
controller has no such step: the request reaches the peripheral's own link layer.

This adapter belongs to a peripheral with at most one link: a Long Term Key Request for a handle
it does not hold is given the handle of its one link (logged). Everything else passes unchanged,
one H4 packet per vhci write. Prints `adapter hciN` once the kernel has made the adapter, then a
line per mended request; runs until killed (closing /dev/vhci removes the adapter).
"""
import argparse
import os
import select
import socket
import sys

# H4 packets from the controller: type -> (header size, payload length from the header)
FROM_CONTROLLER = {
    0x02: (4, lambda h: h[2] | h[3] << 8),           # ACL
    0x03: (3, lambda h: h[2]),                       # SCO
    0x04: (2, lambda h: h[1]),                       # event
    0x05: (4, lambda h: (h[2] | h[3] << 8) & 0x3FFF),  # ISO
}
EVENT_DISCONNECTION_COMPLETE, EVENT_LE_META = 0x05, 0x3E
LE_CONNECTION_COMPLETE, LE_LTK_REQUEST, LE_ENHANCED_CONNECTION_COMPLETE = 0x01, 0x05, 0x0A


class Links:
    """The adapter's LE links, from the controller's events; mends LTK requests."""

    def __init__(self, say):
        self.handles = set()
        self.say = say

    def event(self, packet):
        """The packet to give the kernel for one H4 event packet (type byte included)."""
        code, body = packet[1], packet[3:]
        if code == EVENT_DISCONNECTION_COMPLETE and len(body) >= 3 and body[0] == 0:
            self.handles.discard(body[1] | body[2] << 8)
        elif code == EVENT_LE_META and body:
            sub = body[0]
            if sub in (LE_CONNECTION_COMPLETE, LE_ENHANCED_CONNECTION_COMPLETE) and len(body) >= 4 and body[1] == 0:
                self.handles.add((body[2] | body[3] << 8) & 0x0FFF)
            elif sub == LE_LTK_REQUEST and len(body) >= 3:
                handle = body[1] | body[2] << 8
                if handle not in self.handles and len(self.handles) == 1:
                    (own,) = self.handles
                    self.say(f"LE Long Term Key Request for handle {handle}, which this adapter does not hold: given its link's handle {own}")
                    mended = bytearray(packet)
                    mended[4], mended[5] = own & 0xFF, own >> 8
                    return bytes(mended)
        return packet


def frames(buffer):
    """Cuts whole H4 packets off the front of BUFFER (a bytearray); raises on an unknown type."""
    packets = []
    while buffer:
        kind = buffer[0]
        if kind not in FROM_CONTROLLER:
            raise ValueError(f"H4 packet type 0x{kind:02x} from the controller")
        size, length = FROM_CONTROLLER[kind]
        if len(buffer) < 1 + size or len(buffer) < 1 + size + length(buffer[1:1 + size]):
            break
        total = 1 + size + length(buffer[1:1 + size])
        packets.append(bytes(buffer[:total]))
        del buffer[:total]
    return packets


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--controller", required=True, metavar="SOCKET")
    options = parser.parse_args()

    def say(line):
        print(f"vhci-relay: {line}", flush=True)

    controller = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    controller.connect(options.controller)
    vhci = os.open("/dev/vhci", os.O_RDWR)
    os.write(vhci, bytes([0xFF, 0x00]))  # create a primary controller
    created = os.read(vhci, 16)
    if len(created) < 4 or created[0] != 0xFF:
        sys.exit(f"vhci-relay: unexpected answer from /dev/vhci: {created.hex()}")
    say(f"adapter hci{created[2] | created[3] << 8}")
    links = Links(say)
    pending = bytearray()
    while True:
        readable, _, _ = select.select([vhci, controller], [], [])
        if vhci in readable:
            packet = os.read(vhci, 4096)
            if not packet:
                sys.exit("vhci-relay: /dev/vhci closed")
            controller.sendall(packet)  # one whole packet per send: btvirt reads headers whole
        if controller in readable:
            data = controller.recv(65536)
            if not data:
                sys.exit("vhci-relay: the controller closed")
            pending += data
            for packet in frames(pending):
                os.write(vhci, links.event(packet) if packet[0] == 0x04 else packet)


if __name__ == "__main__":
    main()
