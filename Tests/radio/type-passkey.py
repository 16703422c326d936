#!/usr/bin/env python3
"""type-passkey.py LOG TIMEOUT -- COMMAND...: runs COMMAND with a pseudo-terminal as its stdin
(so `band pair` sees a terminal and asks for the passkey there), waits until LOG (the simulated
watch's or band's stderr) shows a passkey it had not shown when this started, types those six digits and
Enter, and exits with COMMAND's status (124 when it outlives TIMEOUT seconds). COMMAND's stdout
and stderr pass through. The wearer reading the watch's screen, as a script.
"""
import os
import re
import subprocess
import sys
import time

log, timeout = sys.argv[1], float(sys.argv[2])
command = sys.argv[sys.argv.index("--") + 1:]
# "the screen shows passkey N" (a watch on the kernel's SMP), "passkey N: enter it" (the band's own host)
pattern = re.compile(r"passkey (\d{6})")

def shown():
    try:
        with open(log, errors="replace") as f:
            return pattern.findall(f.read())
    except FileNotFoundError:
        return []

before = len(shown())
primary, replica = os.openpty()
child = subprocess.Popen(command, stdin=replica, close_fds=True)
os.close(replica)
deadline = time.monotonic() + timeout
typed = None
while child.poll() is None and time.monotonic() < deadline:
    passkeys = shown()
    if typed is None and len(passkeys) > before:
        typed = passkeys[before]
        print(f"type-passkey: the watch shows {typed}; typing it", file=sys.stderr, flush=True)
        os.write(primary, (typed + "\n").encode())
    # Drain what the terminal echoes, so the command never blocks on a full pseudo-terminal.
    try:
        os.set_blocking(primary, False)
        os.read(primary, 4096)
    except (BlockingIOError, OSError):
        pass
    time.sleep(0.05)
if child.poll() is None:
    child.kill()
    child.wait()
    print(f"type-passkey: {command[0]} still running after {timeout:.0f} s; killed", file=sys.stderr)
    sys.exit(124)
if typed is None:
    print("type-passkey: the watch showed no passkey", file=sys.stderr)
sys.exit(child.returncode)
