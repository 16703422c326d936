#!/usr/bin/env python3
"""chip-band.py COMMON_SH ELF tcp:HOST:PORT [--seed N] [--history-days D] [--state FILE] [--truth FILE]

The chip as the band of a radio stage: the hosted band image (firmware-sim/board/build.sh --band)
in qemu-system-arm on this machine, started the way every check starts it (firmware-common.sh's
hosted_band_qemu), its UART0 speaking H4 to tcp:HOST:PORT (the radio guest's virtio-serial port,
joined to btvirt's LE controller there by h4-relay.py) and its UART1, the debug port, served here.
It takes bandsim serve's stage arguments, so Tests/radio/host-band.sh runs it in bandsim's place:

  --state FILE      the chip keeps its flash pages in bandkit-m4.flash in FILE's directory (QEMU's
                    semihosting file in its working directory): a second run on the same directory
                    is the same chip powered up again, its minute ring and bonds where they were
  --history-days D  on a chip with empty flash, the band starts D days ago and runs at 3600× until
                    its clock is within two hours of now, then at 1× (a band worn for D days)
  --seed N          the band's sensor seed (link message 0x10)
  --truth FILE      every minute the chip records (debug 0x87, byte for byte as stored) as one line
                    of bandsim's truth format (BandFirmwareCore's TruthLine), decoded here: an
                    independent reading of the 16-byte minute record (docs/protocol.md)

On a chip whose flash has recorded minutes (kept or already acknowledged and erased: the flash
report names the newest minute either way), the band starts where its newest minute ends, at 1×: the
minute a power cut interrupted is lost (as on a band) and never recorded twice. The chip's
debug lines ("hosted: passkey 123456", links, bonds) go to stdout as "chip: …"; "listening" once
the band runs at 1× and advertises. SIGINT or SIGTERM powers the chip off (QEMU stopped) and
exits 0; exit 1 when QEMU ends by itself or the chip says something this cannot read.
"""
import argparse
import json
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checks", "support"))
from firmware_uart import DEBUG, LINK, FirmwareUART  # noqa: E402

FAST_SPEED = 3600
# The fast run stops this far before now. A chip busy at 3600× takes its UART late: 0.5 s after
# the speed message, half a band hour, was seen on a loaded machine. The band must never run ahead
# of the wall clock (the reader keeps the band's clock, and a minute from the future is no truth).
SLOW_DOWN_BEFORE_NOW = 2 * 3600


class Stop(Exception):
    pass


def truth_line(sequence, record):
    """One truth line (TruthLine's keys and number formats) from a 16-byte minute record;
    ValueError naming the byte offset for a record docs/protocol.md's decoders refuse."""
    if len(record) != 16:
        raise ValueError(f"record {sequence}: {len(record)} bytes, want 16")
    start, offset, flags, steps, decimetres, decikcal, hr_avg, hr_min, hr_max, activity = struct.unpack("<IbBHHHBBBB", record)
    if start % 60:
        raise ValueError(f"record {sequence}: byte 0: start {start} is not on a minute")
    has_rate = bool(flags & 0x02)
    if not has_rate and (hr_avg or hr_min or hr_max):
        raise ValueError(f"record {sequence}: byte 12: heart rate without flag bit 1")
    if has_rate and not 0 < hr_min <= hr_avg <= hr_max:
        raise ValueError(f"record {sequence}: byte 12: heart rate {hr_min}/{hr_avg}/{hr_max} out of order")
    if flags & 0x10 and activity == 0:
        raise ValueError(f"record {sequence}: byte 5: session start on a minute without activity")
    fields = {
        "minute": datetime.fromtimestamp(start, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "steps": steps,
        "distance_m": f"{decimetres // 10}.{decimetres % 10}",
        "energy_kcal": f"{decikcal // 10}.{decikcal % 10}",
        "hr_avg": hr_avg if has_rate else None,
        "hr_min": hr_min if has_rate else None,
        "hr_max": hr_max if has_rate else None,
        "worn": bool(flags & 0x01),
        "seq": sequence,
        "utc_offset_min": None if offset == -128 else offset * 15,
        "activity": {0: None, 1: "walking", 2: "running"}.get(activity, activity),
        "session_start": bool(flags & 0x10),
    }
    # The two decimals are written as the record holds them, never through a float.
    return "{" + ",".join(f'"{key}":{value if key in ("distance_m", "energy_kcal") else json.dumps(value)}'
                          for key, value in fields.items()) + "}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("common_sh")
    parser.add_argument("elf")
    parser.add_argument("controller", metavar="tcp:HOST:PORT")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--history-days", type=float, default=0)
    parser.add_argument("--state", default="chip/flash.bin")
    parser.add_argument("--truth")
    options = parser.parse_args()
    scheme, _, address = options.controller.partition(":")
    host, _, port = address.rpartition(":")
    if scheme != "tcp" or not host or not port.isdigit():
        parser.error(f"controller {options.controller!r}: want tcp:HOST:PORT")
    directory = os.path.dirname(os.path.abspath(options.state))
    elf = os.path.abspath(options.elf)  # QEMU runs in the flash file's directory
    os.makedirs(directory, exist_ok=True)

    def say(line):
        print(f"chip: {line}", flush=True)

    def stop(signum, _frame):
        raise Stop(signal.Signals(signum).name)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    truth = open(options.truth, "w") if options.truth else None
    sockets = tempfile.mkdtemp(prefix="chip-band.")
    debug_socket = os.path.join(sockets, "uart1.sock")
    qemu = subprocess.Popen(
        ["bash", "-c", 'source "$0"; hosted_band_qemu "$@"', options.common_sh, directory, elf,
         f"socket,host={host},port={port}", f"socket,path={debug_socket},server=on,wait=on"],
        stdin=subprocess.DEVNULL, stdout=sys.stdout, stderr=sys.stdout, start_new_session=True)
    status = 1
    try:
        uart = FirmwareUART(debug_socket, timeout=60.0)
        say(f"QEMU {qemu.pid} up, flash in {directory}/bandkit-m4.flash, H4 on {options.controller}")
        boots = 0
        band_end = None        # the end of the newest minute the chip recorded (Unix s)
        speed = None
        advertising = False
        listening = False
        while True:
            readable, _, _ = select.select([uart.sock], [], [], 1.0)
            if qemu.poll() is not None:
                say(f"QEMU ended by itself (exit {qemu.returncode})")
                break
            if not readable and not uart.buffer:
                continue
            channel, payload = uart.receive()
            code, body = (payload[0], payload[1:]) if payload else (None, b"")
            if channel == LINK and code == 0x80:
                boots += 1
                say(f"booted ({boots})")
            elif channel == DEBUG and code == 0x86:
                boot, _, records, damaged, next_sequence, newest = struct.unpack("<6I", body[:24])
                say(f"flash: boot {boot}, {records} minute(s), {damaged} damaged, next {next_sequence}, newest {newest}")
                now = int(time.time()) // 60 * 60
                # The newest minute's start stays known after a reader's acknowledgement erased
                # the records themselves (0 minutes in the ring, next > 0).
                if newest:
                    start, speed = newest + 60, 1
                else:
                    start = now - int(options.history_days * 86400)
                    speed = FAST_SPEED if start < now - SLOW_DOWN_BEFORE_NOW else 1
                band_end = start
                uart.send(LINK, bytes([0x09]) + struct.pack("<H", speed))
                uart.send(LINK, bytes([0x10]) + struct.pack("<qQb", start, options.seed, 0))
                say(f"band started at {datetime.fromtimestamp(start, timezone.utc):%Y-%m-%dT%H:%M:%SZ}, {speed}×, seed {options.seed}")
            elif channel == DEBUG and code == 0x84:
                text = body.decode(errors="replace").replace("\x1b", "?")
                say(text)
                advertising = advertising or text.startswith("hosted: advertising")
            elif channel == DEBUG and code == 0x87:
                sequence = struct.unpack("<I", body[:4])[0]
                record = bytes(body[4:20])
                line = truth_line(sequence, record)
                band_end = struct.unpack("<I", record[:4])[0] + 60
                if truth:
                    truth.write(line + "\n")
                    truth.flush()
                if speed == FAST_SPEED and band_end >= time.time() - SLOW_DOWN_BEFORE_NOW:
                    speed = 1
                    uart.send(LINK, bytes([0x09]) + struct.pack("<H", speed))
                    say(f"caught up: band at {datetime.fromtimestamp(band_end, timezone.utc):%H:%M:%S}Z, now 1×")
            if not listening and advertising and speed == 1:
                listening = True
                say("listening (advertising on the controller, band at 1×)")
    except Stop as signalled:
        say(f"stopped by {signalled}; powering the chip off")
        status = 0
    except (ValueError, OSError, EOFError, TimeoutError, AssertionError) as error:
        say(f"error: {error}")
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if qemu.poll() is None:
            os.killpg(qemu.pid, signal.SIGTERM)
        qemu.wait()
        if truth:
            truth.close()
        for name in os.listdir(sockets):
            os.unlink(os.path.join(sockets, name))
        os.rmdir(sockets)
    sys.exit(status)


if __name__ == "__main__":
    main()
