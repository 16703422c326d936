#!/usr/bin/env python3
"""The band's hosted chip image against an independent controller and central.

The image (firmware-sim/board/build.sh --band) runs in QEMU: its UART0 speaks H4 to a Bumble
controller (QEMU connects to Bumble's TCP server), its UART1 is the debug port this script serves
on a Unix socket — the band's configuration goes in there as link messages (speed 0x09, start
0x10), and its frames come out: "booted", the flash report, every minute it records (0x87: the
band's truth, byte for byte as stored) and log lines, among them the host's passkey to show. A
second Bumble controller on the same simulated radio carries the central (Tests/bumble/central.py
has the pieces both scripts share). The central:

1. waits until the band has recorded a few hours (run at 3600×, then slowed to 60×);
2. tries legacy pairing, which the band refuses; pairs with LE Secure Connections, a wrong
   passkey first (refused), then the one the band showed on UART1;
3. pairs with the activity service and fetches the whole history, every record equal to the
   band's own 0x87 record with that sequence number;
4. disconnects, resets the chip (link 0x0A: SYSRESETREQ, flash kept), configures it again at the
   end of its last recorded minute, reconnects and re-encrypts with the bond kept in flash (no new
   passkey), proves the activity service's key and fetches the history again.

Usage: chip_central.py COMMON_SH ELF WORKDIR. Exit 0 when every step held, 1 otherwise.
"""
import asyncio
import os
import re
import signal
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checks", "support"))
from firmware_uart import SYNC, LINK, DEBUG, crc8, crc16, frame  # noqa: E402

from central import (STEP_TIMEOUT, ActivityClient, CompleteController, Failure, FaithfulLink,  # noqa: E402
                     PasskeyEntry, check, connect, count_lines, free_port, pair, pair_refusing_legacy_and_a_wrong_passkey,
                     wait_for_more_lines,
                     CENTRAL_ADDRESS)
from bumble import hci, smp  # noqa: E402
from bumble.controller import Controller  # noqa: E402
from bumble.device import Device, Peer  # noqa: E402
from bumble.host import Host  # noqa: E402
from bumble.keys import MemoryKeyStore  # noqa: E402
from bumble.pairing import PairingDelegate  # noqa: E402
from bumble.transport import open_transport  # noqa: E402
from bumble.transport.common import AsyncPipeSink  # noqa: E402

START = 1_796_025_600  # 2026-12-01T00:00:00Z
SEED = 7
FAST_MINUTES = 240


class Chip:
    """The image in QEMU, started through firmware-common.sh's hosted_band_qemu; its debug port
    decoded frame by frame (an independent reading of the UART framing)."""

    def __init__(self, common_sh, elf, port, workdir):
        self.common_sh, self.elf, self.port, self.workdir = common_sh, elf, port, workdir
        self.socket_path = os.path.join(workdir, "debug.sock")
        self.lines = []
        self.passkeys = asyncio.Queue()
        self.truth = {}
        self.boots = 0
        self.newest_minute_start = None
        self.process = None
        self.writer = None
        self.connected = asyncio.Event()
        self.statuses = []

    async def start(self):
        self.server = await asyncio.start_unix_server(self.on_connection, path=self.socket_path)
        self.process = await asyncio.create_subprocess_exec(
            "bash", "-c", 'source "$0"; hosted_band_qemu "$@"', self.common_sh, self.workdir, self.elf,
            f"socket,host=127.0.0.1,port={self.port}", f"socket,path={self.socket_path}", *os.environ.get("CHIP_QEMU_ARGS", "").split(),
            stdin=asyncio.subprocess.DEVNULL, stdout=open(os.path.join(self.workdir, "qemu.log"), "a"), stderr=asyncio.subprocess.STDOUT,
            start_new_session=True)
        with open(os.path.join(self.workdir, "qemu.pid"), "w") as pid_file:
            pid_file.write(f"{self.process.pid}\n")
        await asyncio.wait_for(self.connected.wait(), STEP_TIMEOUT)

    async def on_connection(self, reader, writer):
        self.writer = writer
        self.connected.set()
        buffer = b""
        with open(os.path.join(self.workdir, "debug.log"), "a") as log:
            while chunk := await reader.read(4096):
                buffer += chunk
                while True:
                    start = buffer.find(bytes([SYNC]))
                    if start < 0:
                        buffer = b""
                        break
                    buffer = buffer[start:]
                    if len(buffer) < 5:
                        break
                    if crc8(buffer[1:4]) != buffer[4]:
                        buffer = buffer[1:]
                        continue
                    length = buffer[2] | buffer[3] << 8
                    if len(buffer) < 5 + length + 2:
                        break
                    body, check_value = buffer[1:5 + length], buffer[5 + length] | buffer[6 + length] << 8
                    if crc16(body) != check_value:
                        buffer = buffer[1:]
                        continue
                    self.on_frame(buffer[1], buffer[5:5 + length], log)
                    buffer = buffer[7 + length:]

    def on_frame(self, channel, payload, log):
        if not payload:
            return
        code, body = payload[0], payload[1:]
        if channel == LINK and code == 0x80:
            self.boots += 1
            log.write("booted\n")
        elif channel == DEBUG and code == 0x84:
            text = body.decode(errors="replace")
            log.write(text + "\n")
            self.lines.append(text)
            if match := re.search(r"passkey (\d{6})", text):
                self.passkeys.put_nowait(int(match.group(1)))
        elif channel == DEBUG and code == 0x86:
            boot, _, records, damaged, next_sequence, newest = struct.unpack("<6I", body[:24])
            log.write(f"flash: boot {boot}, {records} minute(s), {damaged} damaged, next {next_sequence}, newest {newest}\n")
            self.newest_minute_start = newest if records else None
        elif channel == DEBUG and code == 0x81:
            self.statuses.append(struct.unpack("<Q8I", body[:40]))
        elif channel == DEBUG and code == 0x87:
            sequence = struct.unpack("<I", body[:4])[0]
            self.truth[sequence] = bytes(body[4:20])
        log.flush()

    def send_link(self, code, body=b""):
        self.writer.write(frame(LINK, bytes([code]) + body))

    def configure(self, start, speed):
        self.send_link(0x09, struct.pack("<H", speed))
        self.send_link(0x10, struct.pack("<qQb", start, SEED, 0))

    async def status(self):
        """Link 0x04 → status 0x81: (heap allocations, after start-up, stack high-water bytes)."""
        before = len(self.statuses)
        self.send_link(0x04)
        await self.wait_for(lambda: len(self.statuses) > before, "a status message")
        fields = self.statuses[-1]
        return fields[6], fields[7], fields[8]

    def set_speed(self, speed):
        self.send_link(0x09, struct.pack("<H", speed))

    async def wait_for(self, condition, what, timeout=STEP_TIMEOUT):
        deadline = asyncio.get_running_loop().time() + timeout
        while not condition():
            check(self.process.returncode is None, f"QEMU exited ({self.process.returncode}) waiting for {what}")
            check(asyncio.get_running_loop().time() < deadline, f"no {what} within {timeout} s")
            await asyncio.sleep(0.05)

    async def wait_for_line(self, pattern, timeout=STEP_TIMEOUT):
        await self.wait_for(lambda: any(re.search(pattern, line) for line in self.lines), f"/{pattern}/ on the debug port", timeout)

    async def stop(self):
        if self.process and self.process.returncode is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            await asyncio.wait_for(self.process.wait(), STEP_TIMEOUT)
        self.server.close()


async def compare_with_chip_truth(chip, first, records):
    """Every fetched record byte for byte against the chip's own 0x87 record for its sequence."""
    last = first + len(records) - 1
    await chip.wait_for(lambda: last in chip.truth, f"the truth of record {last}")
    for index, record in enumerate(records):
        sequence = first + index
        check(sequence in chip.truth, f"record {sequence} is not in the band's truth")
        check(chip.truth[sequence] == record, f"record {sequence}: {record.hex()} over the radio, {chip.truth[sequence].hex()} in the band's truth")
    return len(records)


class AnyNumber(PairingDelegate):
    """A keyboard that types 000000 at once, without waiting for (and taking) a shown passkey."""

    def __init__(self):
        super().__init__(io_capability=PairingDelegate.KEYBOARD_INPUT_ONLY)

    async def get_number(self):
        return 0


async def pair_with_an_invalid_public_key(central, chip):
    """The central's Pairing Public Key is (1, 1), not on P-256: the controller refuses it in LE
    Generate DHKey, and the band must fail the pairing with DHKey Check Failed (0x0B), store
    nothing, and pair normally afterwards (the later steps)."""
    def off_the_curve(session):
        point = (1).to_bytes(32, "little")
        session.send_command(smp.SMP_Pairing_Public_Key_Command(public_key_x=point, public_key_y=point))
    connection = await connect(central)
    original = smp.Session.send_public_key_command
    smp.Session.send_public_key_command = off_the_curve
    try:
        error = await pair(connection, central, AnyNumber())
    finally:
        smp.Session.send_public_key_command = original
    check(getattr(error, "error_code", None) == 0x0B, f"an invalid public key was not refused with DHKey Check Failed: {error!r}")
    await chip.wait_for_line(r"pairing failed, reason 0x0b")
    ended = count_lines(chip, r"hosted: disconnected")
    await connection.disconnect()
    await wait_for_more_lines(chip, r"hosted: disconnected", ended)
    check(not any("bonded" in line for line in chip.lines), "the band stored a bond after an invalid public key")
    while not chip.passkeys.empty():  # a passkey shown before the refusal belongs to no later attempt
        chip.passkeys.get_nowait()
    print("ok: a public key off the curve refused (DHKey Check Failed), nothing stored")


async def main(common_sh, elf, workdir):
    link = FaithfulLink()
    port = free_port()
    radio = await open_transport(f"tcp-server:127.0.0.1:{port}")
    CompleteController("band-radio", host_source=radio.source, host_sink=radio.sink, link=link, public_address="B5:C0:00:00:00:01")
    central_radio = Controller("central-radio", link=link, public_address=CENTRAL_ADDRESS)
    central = Device(address=hci.Address(CENTRAL_ADDRESS), host=Host(central_radio, AsyncPipeSink(central_radio)))
    central.keystore = MemoryKeyStore()
    await central.power_on()

    chip = Chip(common_sh, elf, port, workdir)
    try:
        await chip.start()
        await chip.wait_for(lambda: chip.boots == 1, "booted")
        chip.configure(START, 3600)
        await chip.wait_for(lambda: len(chip.truth) >= FAST_MINUTES, f"{FAST_MINUTES} minutes of truth", timeout=120)
        chip.set_speed(60)
        await chip.wait_for_line(r"hosted: advertising")
        print(f"ok: the chip booted, recorded {len(chip.truth)} minutes and advertises on the Bumble controller")

        await pair_with_an_invalid_public_key(central, chip)
        connection = await pair_refusing_legacy_and_a_wrong_passkey(
            central, chip, refused_legacy=r"pairing failed, reason 0x03", refused_wrong=r"pairing failed, reason 0x04",
            link_ended=r"hosted: disconnected", bonded=r"hosted: bonded with",
            wrong_passkeys=3, throttled=r"too many wrong passkeys, pairing refused for (\d+) ms")
        print("ok: paired with LE Secure Connections (passkey shown on UART1), bond saved in flash")
        await chip.wait_for_line(r"bonded with")
        bonded = next(index for index, line in enumerate(chip.lines) if "bonded with" in line)
        await chip.wait_for(lambda: any("pairing ended after" in line for line in chip.lines[bonded:]), "the pairing's cycle count")
        cycles = next(match.group(1) for line in chip.lines[bonded:] if (match := re.search(r"pairing ended after (\d+) host cycles", line)))
        print(f"ok: the pairing cost the band's host {cycles} cycles (the controller's P-256 work excluded)")

        client = ActivityClient(Peer(connection))
        await client.open()
        reader_id = 0x0B0B_1E00_0000_0002
        key = await client.pair_reader(reader_id)
        first, records = await client.fetch_all()
        check(first == 0 and len(records) >= FAST_MINUTES, f"the history holds {len(records)} records from {first}")
        compared = await compare_with_chip_truth(chip, first, records)
        print(f"ok: the whole history read through the activity service: {compared} minutes equal to the chip's truth, byte for byte")
        _, after_start_up, _ = await chip.status()
        check(after_start_up == 0, f"{after_start_up} heap allocations after start-up (pairing, history)")
        ended = count_lines(chip, r"hosted: disconnected")
        await connection.disconnect()
        await wait_for_more_lines(chip, r"hosted: disconnected", ended)

        lines_before = len(chip.lines)
        last_start = struct.unpack("<I", chip.truth[max(chip.truth)][:4])[0]
        chip.send_link(0x0A)
        await chip.wait_for(lambda: chip.boots == 2 and chip.newest_minute_start is not None, "a second boot with its flash report")
        check(chip.newest_minute_start == last_start, f"after the reset the flash's newest minute starts at {chip.newest_minute_start}, the truth's at {last_start}")
        chip.configure(last_start + 60, 60)
        # Only this boot's lines count: the first boot's "advertising" would let the central connect
        # while the chip still brings its controller up (Bumble's controller keeps advertising
        # across HCI Reset, so the central finds it and the chip misses the connection).
        await chip.wait_for(lambda: any("BLE host on H4, 1 bond" in line for line in chip.lines[lines_before:]), "this boot's host with 1 bond")
        await chip.wait_for(lambda: any("hosted: advertising" in line for line in chip.lines[lines_before:]), "this boot's advertising")
        connection = await connect(central)
        await asyncio.wait_for(connection.encrypt(), STEP_TIMEOUT)
        check(connection.is_encrypted, "re-encryption with the bond failed")
        check(chip.passkeys.empty() and not any("passkey" in line for line in chip.lines[lines_before:]), "the band showed a passkey again")
        print("ok: after a chip reset the central re-encrypted with the bond from flash, no passkey")
        client = ActivityClient(Peer(connection))
        await client.open()
        await client.authenticate(reader_id, key)
        first, records = await client.fetch_all()
        compared = await compare_with_chip_truth(chip, first, records)
        check(compared >= FAST_MINUTES, f"after the reset only {compared} records")
        print(f"ok: after the reset, {compared} minutes equal to the chip's truth")
        ended = count_lines(chip, r"hosted: disconnected")
        await connection.disconnect()
        await wait_for_more_lines(chip, r"hosted: disconnected", ended)
        allocations, after_start_up, stack = await chip.status()
        check(after_start_up == 0, f"{after_start_up} heap allocations after start-up")
        # Tests/checks/firmware-size.sh counts 8 KB of stack in the RAM beside the minute ring.
        check(stack <= 8192, f"stack high-water {stack} B, more than the 8 KB the RAM budget allows")
        print(f"ok: {allocations} heap allocations, all at start-up (0 after); stack high-water {stack} B")
    finally:
        await chip.stop()
        radio.server.close()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: chip_central.py COMMON_SH ELF WORKDIR")
    try:
        asyncio.run(main(*sys.argv[1:]))
    except Failure as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        sys.exit(1)
