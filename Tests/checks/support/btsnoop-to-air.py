#!/usr/bin/env python3
"""btsnoop-to-air.py IN.log OUT.pcapng [--noise]: rewrites a btsnoop H4 session (phone = recording
host = central) as the nRF Sniffer for Bluetooth LE would have captured it over the air: a pcapng
with link type 272 (NORDIC_BLE, protocol version 2), LE Connection Complete as CONNECT_IND, each
ACL fragment as one LL data PDU (LLID 10 start / 01 continuation, SN/NESN acknowledging every
PDU), Disconnection Complete as LL_TERMINATE_IND. With --noise, as the air adds them: an empty
PDU from the peer after every third PDU, a CRC-failed copy before every fifth, a retransmission
after every seventh. With --acked-crc, every eleventh PDU is heard with a failed CRC though intact
(the peer acknowledges it, so it is never sent again). For Tests/checks/tshark-pcapng-crosscheck.sh (layouts: docs/protocol.md)."""
import struct
import sys

AA = 0x50654A2B
ADV_AA = 0x8E89BED6


def block(block_type, body):
    body += b"\0" * (-len(body) % 4)
    length = 12 + len(body)
    return struct.pack("<II", block_type, length) + body + struct.pack("<I", length)


def le_packet(aa, header, payload):
    return struct.pack("<I", aa) + bytes([header, len(payload)]) + payload + b"\xc0\xff\xee"


def nordic(packet, central, crc_ok=True):
    flags = (1 if crc_ok else 0) | (2 if central else 0)
    header = bytes([10, flags, 37, 60, 1, 0]) + struct.pack("<I", 1234)
    length = len(header) + len(packet)
    return bytes([0]) + struct.pack("<H", length) + bytes([2, 7, 0, 6]) + header + packet


def main():
    source, target = sys.argv[1], sys.argv[2]
    noise = "--noise" in sys.argv[3:]
    acked_crc = "--acked-crc" in sys.argv[3:]
    data = open(source, "rb").read()
    assert data[:8] == b"btsnoop\0" and struct.unpack(">I", data[12:16])[0] == 1002, "needs a btsnoop H4 file"
    out = [block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)), block(1, struct.pack("<HHI", 272, 0, 0))]
    sequence, last_sent = [0, 0], [1, 1]
    sent = [0]

    def emit(t, packet, central, crc_ok=True):
        body = nordic(packet, central, crc_ok)
        out.append(block(6, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF, len(body), len(body)) + body))

    def pdu(t, llid, payload, central):
        side = 0 if central else 1
        header = llid | (last_sent[1 - side] ^ 1) << 2 | sequence[side] << 3
        sent[0] += 1
        emit(t, le_packet(AA, header, payload), central, crc_ok=not (acked_crc and sent[0] % 11 == 0))
        last_sent[side] = sequence[side]
        sequence[side] ^= 1

    at, count = 16, 0
    while at + 24 <= len(data):
        _, included, flags, _, stamp = struct.unpack(">IIIIq", data[at:at + 24])
        record = data[at + 24:at + 24 + included]
        at += 24 + included
        t = stamp - 0x00DCDDB30F2F8000
        kind, payload = record[0], record[1:]
        count += 1
        if kind == 4 and len(payload) >= 21 and payload[0] == 0x3E and payload[2] == 0x01:
            sequence[:], last_sent[:] = [0, 0], [1, 1]
            peer_random = payload[7] & 1
            initiator = bytes.fromhex("665544332211")
            llData = struct.pack("<I", AA) + bytes([0x17, 0x3D, 0x5A, 2, 10, 0, 0x18, 0, 0, 0, 0xC8, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0xA5])
            emit(t, le_packet(ADV_AA, 0x05 | (0x80 if peer_random else 0), initiator + payload[8:14] + llData), True)
        elif kind == 4 and len(payload) >= 6 and payload[0] == 0x05:
            pdu(t, 3, bytes([0x02, payload[5]]), True)
        elif kind == 2 and len(payload) >= 4:
            central = flags & 1 == 0
            side = 0 if central else 1
            llid = 1 if (payload[1] >> 4) & 3 == 1 else 2
            fragment = payload[4:]
            if noise and count % 5 == 0:
                damaged = bytearray(le_packet(AA, llid | sequence[side] << 3, fragment))
                damaged[6] ^= 0xFF
                emit(t, bytes(damaged), central, crc_ok=False)
            pdu(t, llid, fragment, central)
            if noise and count % 7 == 0:
                header = llid | (last_sent[1 - side] ^ 1) << 2 | last_sent[side] << 3
                emit(t + 1, le_packet(AA, header, fragment), central)
            if noise and count % 3 == 0:
                pdu(t + 2, 1, b"", not central)
    open(target, "wb").write(b"".join(out))


main()
