"""A scripted Bluetooth controller on the far end of an H4 UART, for Tests/checks/firmware-hci.sh.

A second, independent reading of the HCI the chip's host speaks (Core 5.4 Vol 4 Part A: H4; Part
E: commands and events; Vol 3 Part A: L2CAP LE; Part F: ATT). It answers what a controller
answers, remembers every command, and plays a central's side of a link with ACL data, so a check
can assert what the chip sent. QEMU's UART0 is a Unix stream socket; this is its client.
"""
import struct, time

from firmware_uart import connect_when_listening, receive_before

COMMAND, ACL, EVENT = 0x01, 0x02, 0x04

RESET = 0x0C03
READ_LOCAL_VERSION = 0x1001
READ_LOCAL_FEATURES = 0x1003
READ_BD_ADDR = 0x1009
SET_EVENT_MASK = 0x0C01
LE_SET_EVENT_MASK = 0x2001
LE_READ_BUFFER_SIZE = 0x2002
LE_READ_BUFFER_SIZE_V2 = 0x2060
LE_SET_ADV_PARAMETERS = 0x2006
LE_SET_ADV_DATA = 0x2008
LE_SET_SCAN_RESPONSE = 0x2009
LE_SET_ADV_ENABLE = 0x200A


class ScriptedController:
    def __init__(self, path, address=bytes.fromhex("665544332211"), acl_length=27, acl_count=4, timeout=60.0):
        self.sock = connect_when_listening(path, timeout, retry=0.1)
        self.buffer = b""
        self.address = address
        self.acl_length, self.acl_count = acl_length, acl_count
        self.commands = []          # (opcode, parameters) in the order the chip sent them
        self.refuse = {}            # opcode -> status to answer with
        self.silent = set()         # opcodes left unanswered
        self.in_flight_acl = 0

    # ---- H4 in ----
    def _read(self, count, deadline):
        while len(self.buffer) < count:
            self.buffer += receive_before(self.sock, deadline,
                                          lambda: "no H4 bytes from the chip (have %d of %d)" % (len(self.buffer), count),
                                          lambda: "the chip's UART closed")
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def packet(self, timeout=10.0):
        """The chip's next H4 packet: (COMMAND, opcode, parameters) or (ACL, handle_flags, data)."""
        deadline = time.monotonic() + timeout
        kind = self._read(1, deadline)[0]
        if kind == COMMAND:
            opcode, length = struct.unpack("<HB", self._read(3, deadline))
            return COMMAND, opcode, self._read(length, deadline)
        if kind == ACL:
            handle, length = struct.unpack("<HH", self._read(4, deadline))
            return ACL, handle, self._read(length, deadline)
        raise AssertionError("H4 packet type %#x from the chip (a host sends 0x01 or 0x02)" % kind)

    # ---- H4 out ----
    def send(self, data):
        self.sock.sendall(bytes(data))

    def event(self, code, parameters):
        self.send(bytes([EVENT, code, len(parameters)]) + bytes(parameters))

    def command_complete(self, opcode, returned):
        self.event(0x0E, bytes([1]) + struct.pack("<H", opcode) + bytes(returned))

    def answer(self, opcode, parameters):
        """Command Complete as a controller with LE, `acl_count` × `acl_length` ACL buffers."""
        if opcode in self.refuse:
            return self.command_complete(opcode, [self.refuse[opcode]])
        returned = {
            READ_LOCAL_VERSION: bytes.fromhex("00" "0d" "0000" "0d" "5f00" "0000"),
            READ_LOCAL_FEATURES: bytes.fromhex("00" "0000000040000000"),   # bit 38: LE supported
            LE_READ_BUFFER_SIZE_V2: bytes([0x01]),                          # unknown command: fall back to v1
            LE_READ_BUFFER_SIZE: bytes([0]) + struct.pack("<HB", self.acl_length, self.acl_count),
            READ_BD_ADDR: bytes([0]) + self.address,
        }.get(opcode, bytes([0]))
        self.command_complete(opcode, returned)

    def serve_commands(self, until, timeout=20.0):
        """Answers commands until the chip sends `until` (answered too); returns its parameters."""
        deadline = time.monotonic() + timeout
        while True:
            kind, opcode, parameters = self.packet(timeout=max(0.1, deadline - time.monotonic()))
            assert kind == COMMAND, "ACL data %s before the command %#06x" % (parameters.hex(), until)
            self.commands.append((opcode, parameters))
            if opcode not in self.silent:
                self.answer(opcode, parameters)
            if opcode == until:
                return parameters

    # ---- a central's link ----
    def connect(self, handle=0x0040, central=bytes.fromhex("665544332211"), interval=0x18):
        # LE Connection Complete: status, handle, role 1 (peripheral), peer type random, address,
        # interval, latency 0, supervision timeout 0x48, clock accuracy.
        self.event(0x3E, bytes([0x01, 0x00]) + struct.pack("<H", handle) + bytes([0x01, 0x01]) + central
                   + struct.pack("<HHHB", interval, 0, 0x48, 0))
        self.handle = handle

    def disconnect(self, reason=0x13):
        self.event(0x05, bytes([0x00]) + struct.pack("<H", self.handle) + bytes([reason]))

    def send_l2cap(self, channel, payload):
        """One L2CAP PDU as the central sends it, in ACL packets of `acl_length` bytes."""
        pdu = struct.pack("<HH", len(payload), channel) + bytes(payload)
        for offset in range(0, len(pdu), self.acl_length):
            flags = 0x0000 if offset == 0 else 0x1000   # first automatically flushable / continuing
            part = pdu[offset:offset + self.acl_length]
            self.send(bytes([ACL]) + struct.pack("<HH", self.handle | flags, len(part)) + part)

    def receive_l2cap(self, timeout=10.0):
        """The chip's next L2CAP PDU: (channel, payload), its fragments checked against the ACL size
        and the credits (each fragment is acknowledged with Number Of Completed Packets)."""
        deadline = time.monotonic() + timeout
        pdu, expected = b"", None
        while expected is None or len(pdu) < expected:
            kind, first, data = self.packet(timeout=max(0.1, deadline - time.monotonic()))
            if kind == COMMAND:
                self.commands.append((first, data))
                self.answer(first, data)
                continue
            assert first & 0x0FFF == self.handle, "ACL for handle %#x, the link is %#x" % (first & 0x0FFF, self.handle)
            assert len(data) <= self.acl_length, "an ACL fragment of %d bytes, the controller takes %d" % (len(data), self.acl_length)
            starting = (first >> 12) & 0x3 != 0x1
            assert starting == (expected is None), "ACL packet boundary flag %#x out of place" % ((first >> 12) & 0x3)
            pdu += data
            if expected is None:
                expected = 4 + struct.unpack("<H", pdu[:2])[0]
            # Number Of Completed Packets: the fragment left the controller.
            self.event(0x13, bytes([1]) + struct.pack("<HH", self.handle, 1))
        assert len(pdu) == expected, "L2CAP PDU of %d bytes, its header says %d" % (len(pdu), expected)
        return struct.unpack("<H", pdu[2:4])[0], pdu[4:]

    def att(self, request, timeout=10.0):
        """Sends an ATT request on CID 4 and returns the chip's ATT PDU in answer."""
        self.send_l2cap(0x0004, request)
        channel, payload = self.receive_l2cap(timeout)
        assert channel == 0x0004, "answer on L2CAP channel %#x, not ATT" % channel
        return payload


def advertising_structures(data):
    """The AD structures of Advertising Data / Scan Response parameters (length byte, then 31)."""
    length, body = data[0], data[1:1 + data[0]]
    assert length <= 31 and len(data) == 32, "advertising data: %d significant bytes in %d" % (length, len(data))
    structures, offset = {}, 0
    while offset < len(body):
        size = body[offset]
        if size == 0:
            break
        structures.setdefault(body[offset + 1], []).append(body[offset + 2:offset + 1 + size])
        offset += 1 + size
    assert offset <= len(body), "an AD structure runs past the data"
    return structures
