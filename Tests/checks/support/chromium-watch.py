#!/usr/bin/env python3
"""Open URL in headless Chromium and wait until a JavaScript expression is true.

    chromium-watch.py CHROMIUM URL EXPRESSION TIMEOUT_SECONDS [PROFILE_DIR]

Talks the DevTools protocol over --remote-debugging-pipe (NUL-terminated JSON on the child's
fds 3 and 4), so no websocket library is needed. Prints the expression's last value and the
document's #live text; exits 0 when the expression became true in time, 1 otherwise. Chromium
is killed on every way out.
"""
import json, os, select, subprocess, sys, time

chromium, url, expression, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
profile = sys.argv[5] if len(sys.argv) > 5 else "/tmp/chromium-watch-profile"
to_child_read, to_child_write = os.pipe()
from_child_read, from_child_write = os.pipe()

def wire_fds():
    os.dup2(to_child_read, 3)
    os.dup2(from_child_write, 4)

child = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
     "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"],
    pass_fds=(3, 4, to_child_read, from_child_write), preexec_fn=wire_fds,  # 3, 4: kept open after the dup2
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_child_read)
os.close(from_child_write)
buffer = b""
next_id = 0

def send(method, params=None, session=None):
    global next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session: message["sessionId"] = session
    os.write(to_child_write, json.dumps(message).encode() + b"\0")
    return next_id

def reply(wanted, deadline):
    global buffer
    while time.time() < deadline:
        while b"\0" in buffer:
            raw, buffer = buffer.split(b"\0", 1)
            message = json.loads(raw)
            if message.get("id") == wanted:
                if "error" in message: raise RuntimeError(message["error"])
                return message.get("result", {})
        ready, _, _ = select.select([from_child_read], [], [], 0.5)
        if ready:
            chunk = os.read(from_child_read, 65536)
            if not chunk: raise RuntimeError("chromium closed the pipe")
            buffer += chunk
    raise TimeoutError("no reply to request %d" % wanted)

status = 1
try:
    deadline = time.time() + timeout
    target = reply(send("Target.createTarget", {"url": url}), deadline)["targetId"]
    session = reply(send("Target.attachToTarget", {"targetId": target, "flatten": True}), deadline)["sessionId"]
    value = None
    while time.time() < deadline:
        result = reply(send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session), deadline)
        value = result.get("result", {}).get("value")
        if value is True:
            status = 0
            break
        time.sleep(0.5)
    live = reply(send("Runtime.evaluate", {"expression": "(document.getElementById('live')||{}).textContent", "returnByValue": True}, session), time.time() + 5)
    print("expression:", value, "| #live:", live.get("result", {}).get("value"))
except Exception as error:
    print("chromium-watch:", error, file=sys.stderr)
finally:
    child.kill()
    child.wait()
sys.exit(status)
