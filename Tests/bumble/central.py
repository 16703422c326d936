#!/usr/bin/env python3
"""An independent controller and central for the band's own Bluetooth host.

Two Bumble controllers share one simulated radio (a LocalLink): the first is exposed on a TCP
socket, where `bandsim serve --hci-controller tcp:…` drives it with the band's own host
(BandLEHost); the second sits under a Bumble Device acting as the central. The central:

1. tries legacy pairing, which the band refuses (Pairing Failed, Authentication Requirements);
2. pairs with LE Secure Connections, passkey entry: first a wrong passkey (the band refuses it,
   Confirm Value Failed), then the one bandsim printed on stderr;
3. discovers the band's services, pairs with the activity service (Auth Control Point) and
   fetches the whole minute history through it (History Control Point and History Data),
   checking packet numbers and the CRC-32, then compares it minute for minute with the band's
   own truth (`--truth`);
4. disconnects; bandsim is stopped and started again on the same --state; the central
   reconnects and re-encrypts with the stored bond (bandsim must print no passkey), proves
   it holds the activity service's key (Challenge/Proof) and reads the history again.

Usage: central.py BANDSIM WORKDIR. Exit 0 when every step held, 1 otherwise (the step says why).
Bumble is a test-only dependency (Tests/checks/bumble.sh installs it into a venv).
"""
import asyncio
import datetime
import hashlib
import hmac
import json
import os
import re
import socket
import struct
import sys
import zlib

import bumble.colors

if os.environ.get("NO_COLOR"):
    # Bumble colours its log lines whatever the terminal (it reads neither NO_COLOR nor TERM), and
    # a CI log shows escape codes, not colours: plain text, before its modules import `color`.
    bumble.colors.color = lambda text, *styles, **named: text

from bumble import hci
from bumble.controller import Controller
from bumble.core import UUID, AdvertisingData, PhysicalTransport
from bumble.crypto import EccKey
from bumble.device import Device, Peer
from bumble.host import Host
from bumble.keys import MemoryKeyStore
from bumble.link import LocalLink
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport
from bumble.transport.common import AsyncPipeSink

CENTRAL_ADDRESS = "C0:B5:C0:00:00:02"
STEP_TIMEOUT = 20.0


def activity_uuid(short):
    return UUID(f"b5c0{short:04x}-4e2f-4b1a-9a6c-2d1f0e8b7a36")


ACTIVITY_SERVICE = activity_uuid(1)
HISTORY_CONTROL_POINT = activity_uuid(3)
HISTORY_DATA = activity_uuid(4)
AUTH_CONTROL_POINT = activity_uuid(5)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class CompleteController(Controller):
    """Bumble's emulated controller acknowledges LE Read Local P-256 Public Key without ever
    sending the key, and does not know LE Generate DHKey. A real controller does both (Core 5.4
    Vol 4 Part E §7.8.36, §7.8.37) and the band's host relies on them, so this controller
    completes them the way one does: Command Status, then the LE Meta event."""

    p256 = None

    def on_hci_command_packet(self, command):
        if command.op_code == hci.HCI_LE_READ_LOCAL_P_256_PUBLIC_KEY_COMMAND:
            self.p256 = EccKey.generate()
            self.send_raw(bytes([0x04, 0x0F, 0x04, 0x00, 0x01]) + struct.pack("<H", command.op_code))
            key = self.p256.x[::-1] + self.p256.y[::-1]
            self.send_raw(bytes([0x04, 0x3E, 2 + len(key), 0x08, 0x00]) + key)
        elif command.op_code == hci.HCI_LE_GENERATE_DHKEY_COMMAND:
            parameters = bytes(command.parameters)
            self.send_raw(bytes([0x04, 0x0F, 0x04, 0x00, 0x01]) + struct.pack("<H", command.op_code))
            status, dhkey = 0x00, bytes(32)
            try:
                dhkey = self.p256.dh(parameters[0:32][::-1], parameters[32:64][::-1])[::-1]
            except Exception:  # a point not on the curve: the controller refuses it
                status = 0x12  # Invalid HCI Command Parameters
            self.send_raw(bytes([0x04, 0x3E, 34, 0x09, status]) + dhkey)
        else:
            super().on_hci_command_packet(command)

    def send_raw(self, packet):
        if self.host:
            asyncio.get_running_loop().call_soon(self.host.on_packet, packet)


class FaithfulLink(LocalLink):
    """Bumble's LocalLink sends LE ACL data from the sender's random address; a peripheral that
    advertises with its public address (as the band does) is known to the central by that one,
    so the data goes out from the address the link was made with."""

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        connection = sender_controller.le_connections.get(destination_address)
        destination = self.find_le_controller(destination_address)
        if transport != PhysicalTransport.LE or connection is None or destination is None:
            return super().send_acl_data(sender_controller, destination_address, transport, data)
        source = connection.self_address
        asyncio.get_running_loop().call_soon(lambda: destination.on_link_acl_data(source, transport, data))


class Bandsim:
    """`bandsim serve --hci-controller` as a child process; its stderr is kept and passkeys
    are queued as it prints them."""

    def __init__(self, bandsim, port, workdir):
        self.arguments = [
            bandsim, "serve", "--hci-controller", f"tcp:127.0.0.1:{port}",
            "--state", os.path.join(workdir, "band.state"), "--truth", os.path.join(workdir, "truth.ndjson"),
            "--start", "2026-11-30T08:00:00Z", "--history-days", "1", "--speed", "60", "--seed", "7",
        ]
        self.log_path = os.path.join(workdir, "bandsim.log")
        self.process = None
        self.lines = []
        self.passkeys = asyncio.Queue()

    async def start(self):
        self.lines = []
        self.passkeys = asyncio.Queue()
        self.process = await asyncio.create_subprocess_exec(*self.arguments, stdin=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        self.reader = asyncio.create_task(self.read_stderr())
        with open(os.path.join(os.path.dirname(self.log_path), "bandsim.pid"), "w") as pid_file:
            pid_file.write(f"{self.process.pid}\n")

    async def read_stderr(self):
        with open(self.log_path, "a") as log:
            while line := await self.process.stderr.readline():
                text = line.decode(errors="replace").rstrip("\n")
                log.write(text + "\n")
                log.flush()
                self.lines.append(text)
                if match := re.search(r"passkey (\d{6})", text):
                    self.passkeys.put_nowait(int(match.group(1)))

    async def wait_for_line(self, pattern, timeout=STEP_TIMEOUT):
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            if any(re.search(pattern, line) for line in self.lines):
                return
            check(self.process.returncode is None, f"bandsim exited ({self.process.returncode}) before printing /{pattern}/")
            await asyncio.sleep(0.05)
        raise Failure(f"bandsim did not print /{pattern}/ within {timeout} s")

    async def stop(self):
        if self.process and self.process.returncode is None:
            self.process.terminate()
            code = await asyncio.wait_for(self.process.wait(), STEP_TIMEOUT)
            await self.reader
            check(code == 0, f"bandsim exited {code} on SIGTERM")


class PasskeyEntry(PairingDelegate):
    """The central's keyboard: types the passkey the band showed (or, `wrong`, another one)."""

    def __init__(self, band, wrong=False):
        super().__init__(io_capability=PairingDelegate.KEYBOARD_INPUT_ONLY)
        self.band = band
        self.wrong = wrong
        self.asked = 0

    async def get_number(self):
        self.asked += 1
        shown = await asyncio.wait_for(self.band.passkeys.get(), STEP_TIMEOUT)
        return (shown + 1) % 1_000_000 if self.wrong else shown


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def connect(central):
    """Scans until the band advertises its activity service, then connects to it."""
    found = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement):
        services = advertisement.data.get(AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS) or []
        if ACTIVITY_SERVICE in services and not found.done():
            found.set_result(advertisement.address)

    central.on("advertisement", on_advertisement)
    await central.start_scanning(active=True)
    try:
        address = await asyncio.wait_for(found, STEP_TIMEOUT)
    finally:
        central.remove_listener("advertisement", on_advertisement)
        await central.stop_scanning()
    # From its identity (public) address: the band keeps bonds by identity address and does not
    # yet resolve private addresses with the central's IRK.
    return await asyncio.wait_for(central.connect(address, own_address_type=hci.OwnAddressType.PUBLIC), STEP_TIMEOUT)


async def pair(connection, central, delegate, sc=True):
    central.pairing_config_factory = lambda _: PairingConfig(sc=sc, mitm=True, bonding=True, delegate=delegate)
    try:
        await asyncio.wait_for(connection.pair(), STEP_TIMEOUT)
        return None
    except Failure:
        raise
    except Exception as error:  # Bumble reports a Pairing Failed as an exception
        return error


async def pair_refusing_legacy_and_a_wrong_passkey(central, device, refused_legacy, refused_wrong, link_ended, bonded,
                                                   wrong_passkeys=1, throttled=None):
    """The pairing every band must hold to, in order: a legacy-pairing central refused; a wrong
    passkey refused; the passkey the device shows pairs with LE Secure Connections. `device`
    shows its passkey and log lines (Bandsim, the chip's UART1); the other arguments are the
    patterns of its lines for each step. With `wrong_passkeys` 3 and `throttled` (the pattern of
    the line saying pairing is refused, its group the milliseconds left), the band must refuse
    the right passkey with Repeated Attempts until the wait it names is over. Returns the
    encrypted connection."""
    connection = await connect(central)
    error = await pair(connection, central, PasskeyEntry(device), sc=False)
    check(error is not None, "the band accepted legacy pairing")
    await device.wait_for_line(refused_legacy)
    print("ok: legacy pairing refused (Authentication Requirements)")
    ended = count_lines(device, link_ended)
    await connection.disconnect()
    await wait_for_more_lines(device, link_ended, ended)

    connection = await connect(central)
    for attempt in range(wrong_passkeys):
        wrong = PasskeyEntry(device, wrong=True)
        refusals = count_lines(device, refused_wrong)
        error = await pair(connection, central, wrong)
        check(error is not None and wrong.asked == 1, f"pairing with wrong passkey {attempt + 1} did not fail")
        await wait_for_more_lines(device, refused_wrong, refusals)
        print(f"ok: wrong passkey {attempt + 1} refused (Confirm Value Failed)")
    if throttled:
        await refused_for_repeated_attempts(connection, central, device, throttled)
    error = await pair(connection, central, PasskeyEntry(device))
    for _ in range(5 if throttled else 0):
        # The band's clock is its own (a loaded emulator's runs slow): while it still refuses,
        # it names a shorter wait each time, which is sat out again.
        if getattr(error, "error_code", None) != 0x09:
            break
        said = count_lines(device, throttled)
        await wait_for_more_lines(device, throttled, said - 1)
        left = int(re.search(throttled, [line for line in device.lines if re.search(throttled, line)][-1]).group(1))
        check(left <= 10_000, f"the band's wait grew to {left} ms")
        await asyncio.sleep(left / 1000 + 0.5)
        error = await pair(connection, central, PasskeyEntry(device))
    check(error is None, f"pairing with the band's passkey failed: {error}")
    check(connection.is_encrypted, "the link is not encrypted after pairing")
    await device.wait_for_line(bonded)
    return connection


def count_lines(device, pattern):
    return sum(1 for line in device.lines if re.search(pattern, line))


async def wait_for_more_lines(device, pattern, seen):
    """Until the device has printed more than `seen` lines matching `pattern`."""
    deadline = asyncio.get_running_loop().time() + STEP_TIMEOUT
    while count_lines(device, pattern) <= seen:
        check(asyncio.get_running_loop().time() < deadline, f"no new /{pattern}/ within {STEP_TIMEOUT} s")
        await asyncio.sleep(0.05)


async def refused_for_repeated_attempts(connection, central, device, throttled):
    """After the wrong passkeys, the right one is refused with Repeated Attempts (0x09) while the
    band's wait runs, and the band says so; then the wait is sat out."""
    await device.wait_for_line(throttled)
    said = count_lines(device, throttled)
    started = asyncio.get_running_loop().time()
    error = await pair(connection, central, PasskeyEntry(device))
    code = getattr(error, "error_code", None)
    check(code == 0x09, f"the band did not refuse a pairing within its wait with Repeated Attempts (got {error!r})")
    await wait_for_more_lines(device, throttled, said)
    left = int(re.search(throttled, [line for line in device.lines if re.search(throttled, line)][-1]).group(1))
    check(0 < left <= 10_000, f"the band names a wait of {left} ms")
    print(f"ok: three wrong passkeys, then the right one refused with Repeated Attempts; the band says {left} ms to wait")
    await asyncio.sleep(left / 1000 + 0.5 - (asyncio.get_running_loop().time() - started))


class ActivityClient:
    """The band's activity service through Bumble's GATT client: control points answered by
    indications, history by notifications."""

    def __init__(self, peer):
        self.peer = peer
        self.indications = asyncio.Queue()
        self.packets = []

    async def open(self):
        await asyncio.wait_for(self.peer.discover_services(), STEP_TIMEOUT)
        check(self.peer.get_services_by_uuid(ACTIVITY_SERVICE), "the band does not offer its activity service")
        for service in self.peer.services:
            await asyncio.wait_for(service.discover_characteristics(), STEP_TIMEOUT)
        self.auth = self.characteristic(AUTH_CONTROL_POINT)
        self.history = self.characteristic(HISTORY_CONTROL_POINT)
        self.data = self.characteristic(HISTORY_DATA)
        await self.peer.subscribe(self.auth, self.indications.put_nowait, prefer_notify=False)

    def characteristic(self, uuid):
        found = self.peer.get_characteristics_by_uuid(uuid)
        check(found, f"the band has no characteristic {uuid}")
        return found[0]

    async def request(self, characteristic, value):
        await asyncio.wait_for(self.peer.write_value(characteristic, value, with_response=True), STEP_TIMEOUT)
        return bytes(await asyncio.wait_for(self.indications.get(), STEP_TIMEOUT))

    async def pair_reader(self, reader_id):
        answer = await self.request(self.auth, struct.pack("<BQ", 0x01, reader_id))
        check(len(answer) == 18 and answer[:2] == b"\x81\x00", f"activity-service pairing refused: {answer.hex()}")
        return answer[2:]

    async def authenticate(self, reader_id, key):
        reader_nonce = int.from_bytes(os.urandom(8), "little")
        answer = await self.request(self.auth, struct.pack("<BQQ", 0x02, reader_id, reader_nonce))
        check(len(answer) == 18 and answer[:2] == b"\x82\x00", f"challenge refused: {answer.hex()}")
        context = struct.pack("<QQ", reader_id, reader_nonce) + answer[2:]
        proof = hmac.new(key, b"BandKit auth v1 reader" + context, hashlib.sha256).digest()[:16]
        answer = await self.request(self.auth, b"\x03" + proof)
        check(answer[:2] == b"\x83\x00", f"proof refused: {answer.hex()}")
        band_proof = hmac.new(key, b"BandKit auth v1 band" + context, hashlib.sha256).digest()[:16]
        check(hmac.compare_digest(answer[2:], band_proof), "the band's proof is wrong: it does not hold the key")

    async def fetch_all(self):
        """Fetch from sequence 0: (first sequence, records as 16-byte strings)."""
        await self.peer.subscribe(self.history, self.indications.put_nowait, prefer_notify=False)
        await self.peer.subscribe(self.data, lambda value: self.packets.append(bytes(value)), prefer_notify=True)
        self.packets = []
        answer = await self.request(self.history, struct.pack("<BIH", 0x01, 0, 0))
        check(len(answer) == 19 and answer[:3] == b"\x81\x00\x10", f"fetch refused: {answer.hex()}")
        _, first, count, gap = struct.unpack("<IIII", answer[3:19])
        complete = bytes(await asyncio.wait_for(self.indications.get(), 120))
        check(complete[:2] == b"\x82\x00", f"transfer did not complete: {complete.hex()}")
        packets, records_sent, crc = struct.unpack("<III", complete[2:14])
        check(len(self.packets) == packets, f"{len(self.packets)} data packets arrived, the band sent {packets}")
        records = b""
        for number, packet in enumerate(self.packets):
            check(struct.unpack("<H", packet[:2])[0] == number & 0xFFFF, f"data packet {number} is numbered {packet[:2].hex()}")
            records += packet[2:]
        check(records_sent == count == len(records) // 16, f"{len(records) // 16} records, fetch said {count}, complete said {records_sent}")
        check(zlib.crc32(records) == crc, f"CRC-32 {zlib.crc32(records):08x} of the records, the band says {crc:08x}")
        return first, [records[i:i + 16] for i in range(0, len(records), 16)]


def compare_with_truth(first, records, truth_path):
    """Every fetched record against the band's own line for its sequence number."""
    truth = {}
    with open(truth_path) as lines:
        for line in lines:
            entry = json.loads(line)
            truth[entry["seq"]] = entry
    for index, record in enumerate(records):
        sequence = first + index
        check(sequence in truth, f"record {sequence} is not in the band's truth")
        expected = truth[sequence]
        start, offset, flags, steps, distance, energy, hr_avg, hr_min, hr_max, activity = struct.unpack("<IbBHHHBBBB", record)
        minute = expected["minute"]
        got = {
            "minute": f"{datetime.datetime.fromtimestamp(start, datetime.UTC):%Y-%m-%dT%H:%M:%SZ}",
            "steps": steps, "distance_m": distance / 10, "energy_kcal": energy / 10,
            "hr_avg": hr_avg if flags & 2 else None, "hr_min": hr_min if flags & 2 else None, "hr_max": hr_max if flags & 2 else None,
            "worn": bool(flags & 1),
        }
        for key, value in got.items():
            check(expected[key] == value, f"record {sequence} ({minute}): {key} is {value} over the radio, {expected[key]} in the band's truth")
    return len(records)


async def main(bandsim_path, workdir):
    link = FaithfulLink()
    port = free_port()
    radio = await open_transport(f"tcp-server:127.0.0.1:{port}")
    CompleteController("band-radio", host_source=radio.source, host_sink=radio.sink, link=link, public_address="B5:C0:00:00:00:01")
    central_radio = Controller("central-radio", link=link, public_address=CENTRAL_ADDRESS)
    central = Device(address=hci.Address(CENTRAL_ADDRESS), host=Host(central_radio, AsyncPipeSink(central_radio)))
    central.keystore = MemoryKeyStore()
    await central.power_on()

    band = Bandsim(bandsim_path, port, workdir)
    try:
        await band.start()
        await band.wait_for_line(r"listening on controller")

        connection = await pair_refusing_legacy_and_a_wrong_passkey(
            central, band,
            refused_legacy=r"pairing failed: reason 0x3 \(Authentication Requirements\), sent by the band",
            refused_wrong=r"pairing failed: reason 0x4 \(Confirm Value Failed\)",
            link_ended=r"link ended", bonded=r"bond stored")
        print("ok: paired with LE Secure Connections (passkey), bond stored")

        client = ActivityClient(Peer(connection))
        await client.open()
        reader_id = 0x0B0B_1E00_0000_0001
        key = await client.pair_reader(reader_id)
        first, records = await client.fetch_all()
        check(len(records) >= 1440, f"only {len(records)} records came over the radio (a day of history was expected)")
        compared = compare_with_truth(first, records, os.path.join(workdir, "truth.ndjson"))
        print(f"ok: history read through the activity service: {compared} minutes equal to the band's truth")
        await connection.disconnect()
        await band.wait_for_line(r"link ended")

        await band.stop()
        await band.start()
        await band.wait_for_line(r"listening on controller")
        check(re.search(r"1 bond", "\n".join(band.lines)), "the restarted band did not load its bond")
        connection = await connect(central)
        await asyncio.wait_for(connection.encrypt(), STEP_TIMEOUT)
        check(connection.is_encrypted, "re-encryption with the bond failed")
        check(band.passkeys.empty() and not any("passkey" in line for line in band.lines), "the band asked for a passkey again")
        print("ok: after a restart the central re-encrypted with the stored bond, no passkey")
        client = ActivityClient(Peer(connection))
        await client.open()
        await client.authenticate(reader_id, key)
        first, records = await client.fetch_all()
        compared = compare_with_truth(first, records, os.path.join(workdir, "truth.ndjson"))
        print(f"ok: after the restart, {compared} minutes equal to the band's truth")
        await connection.disconnect()
        await band.wait_for_line(r"link ended")
    finally:
        await band.stop()
        radio.server.close()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: central.py BANDSIM WORKDIR")
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2]))
    except Failure as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        sys.exit(1)
