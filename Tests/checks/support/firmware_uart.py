"""Host side of the firmware's UART (docs/protocol.md, "UART framing"), for Tests/checks/firmware-qemu.sh.

A second, independent implementation of the frame (the firmware's is Swift, UARTFraming): if the
two disagree about the specification, the check fails. QEMU's UART0 is a Unix stream socket.
"""
import hashlib, hmac, socket, time

SYNC = 0xA5
ATT, LINK, DEBUG = 0x01, 0x02, 0x03


def crc8(data):
    value = 0
    for byte in data:
        value ^= byte
        for _ in range(8):
            value = ((value << 1) ^ 0x07) & 0xFF if value & 0x80 else (value << 1) & 0xFF
    return value


def crc16(data):
    value = 0xFFFF
    for byte in data:
        value ^= byte << 8
        for _ in range(8):
            value = ((value << 1) ^ 0x1021) & 0xFFFF if value & 0x8000 else (value << 1) & 0xFFFF
    return value


def frame(channel, payload):
    header = bytes([channel, len(payload) & 0xFF, len(payload) >> 8])
    body = header + bytes([crc8(header)]) + bytes(payload)
    check = crc16(body)
    return bytes([SYNC]) + body + bytes([check & 0xFF, check >> 8])


def connect_when_listening(path, timeout, retry):
    """A stream socket connected to the Unix socket at `path`, tried every `retry` seconds until
    QEMU listens there; the last error after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(retry)


def receive_before(sock, deadline, timed_out, closed):
    """The next bytes from `sock` (up to 4096) before `deadline` (time.monotonic()); TimeoutError or
    EOFError with the message `timed_out()` or `closed()` makes."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError(timed_out())
    sock.settimeout(remaining)
    chunk = sock.recv(4096)
    if not chunk:
        raise EOFError(closed())
    return chunk


class FirmwareUART:
    """Frames to and from the firmware; bytes outside frames are kept as `raw` (the fault report)."""

    def __init__(self, path, timeout=20.0):
        self.sock = connect_when_listening(path, timeout, retry=0.05)
        self.buffer = b""
        self.raw = b""
        self.timeout = timeout

    def send(self, channel, payload):
        self.sock.sendall(frame(channel, payload))

    def send_raw(self, data):
        self.sock.sendall(data)

    def _fill(self, deadline):
        self.buffer += receive_before(
            self.sock, deadline,
            lambda: "no frame from the firmware within %.0f s (raw output: %r)" % (self.timeout, self.raw[-200:]),
            lambda: "the firmware's UART closed (raw output: %r)" % self.raw[-200:])

    def receive(self):
        """The next checked frame as (channel, payload)."""
        deadline = time.monotonic() + self.timeout
        while True:
            while self.buffer and self.buffer[0] != SYNC:
                self.raw += self.buffer[:1]
                self.buffer = self.buffer[1:]
            if len(self.buffer) >= 5:
                channel, low, high, check = self.buffer[1], self.buffer[2], self.buffer[3], self.buffer[4]
                length = low | high << 8
                if crc8(self.buffer[1:4]) != check or length > 517:
                    self.raw += self.buffer[:1]
                    self.buffer = self.buffer[1:]
                    continue
                total = 5 + length + 2
                if len(self.buffer) >= total:
                    if crc16(self.buffer[1:total - 2]) == (self.buffer[total - 2] | self.buffer[total - 1] << 8):
                        payload = self.buffer[5:5 + length]
                        self.buffer = self.buffer[total:]
                        return channel, payload
                    self.raw += self.buffer[:1]
                    self.buffer = self.buffer[1:]
                    continue
            self._fill(deadline)

    def expect(self, channel, code=None):
        """The next frame, which must be on `channel` (and start with `code`); debug log lines are skipped."""
        while True:
            got_channel, payload = self.receive()
            if got_channel == DEBUG and payload[:1] == b"\x84" and code != 0x84:
                continue
            if got_channel != channel or (code is not None and payload[:1] != bytes([code])):
                raise AssertionError("expected channel %d code %r, got channel %d payload %s"
                                     % (channel, code, got_channel, payload.hex()))
            return payload

    def read_until_closed(self, limit=5.0):
        """Everything the firmware sends until QEMU closes the socket (after a semihosting exit)."""
        deadline = time.monotonic() + limit
        data = self.buffer
        while time.monotonic() < deadline:
            self.sock.settimeout(max(deadline - time.monotonic(), 0.01))
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                break
            if not chunk:
                break
            data += chunk
        return self.raw + data


class HMACDRBG:
    """SP 800-90A HMAC_DRBG with SHA-256 (Python's hmac: OpenSSL), to predict the firmware's bytes."""

    def __init__(self, entropy, nonce):
        self.key, self.value = b"\x00" * 32, b"\x01" * 32
        self._update(entropy + nonce)

    def _mac(self, data):
        return hmac.new(self.key, data, hashlib.sha256).digest()

    def _update(self, provided):
        self.key = self._mac(self.value + b"\x00" + provided)
        self.value = self._mac(self.value)
        if provided:
            self.key = self._mac(self.value + b"\x01" + provided)
            self.value = self._mac(self.value)

    def generate(self, count):
        out = b""
        while len(out) < count:
            self.value = self._mac(self.value)
            out += self.value
        self._update(b"")
        return out[:count]
