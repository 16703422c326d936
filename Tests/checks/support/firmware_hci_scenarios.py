"""The scenarios of Tests/checks/firmware-hci.sh: the chip's hosted build against a scripted
controller (scripted_controller.py). Usage: firmware_hci_scenarios.py link|refused|silent WORKDIR."""
import os, struct, sys, time
from scripted_controller import *

scenario, work = sys.argv[1], sys.argv[2]
BAND_SERVICE = bytes.fromhex("367a8b0e1f2d6c9a1a4b2f4e0100c0b5")   # b5c00001-4e2f-4b1a-9a6c-2d1f0e8b7a36, LSB first


def debug_lines():
    try:
        with open(os.path.join(work, "debug.log"), "rb") as f:
            return f.read().decode("ascii", "replace").splitlines()
    except FileNotFoundError:
        return []


def expect_line(prefix, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in debug_lines():
            if line.startswith(prefix):
                return line
        time.sleep(0.05)
    raise AssertionError("no debug line %r from the chip; it said: %s" % (prefix, debug_lines()))


controller = ScriptedController(os.path.join(work, "uart.sock"))

if scenario == "refused":
    controller.refuse[LE_SET_ADV_PARAMETERS] = 0x12   # Invalid HCI Command Parameters
    controller.serve_commands(until=LE_SET_ADV_PARAMETERS)
    line = expect_line("hosted: stopped")
    assert line == "hosted: stopped: opcode 0x2006 refused, status 0x12", line
    try:
        kind, opcode, _ = controller.packet(timeout=1.0)
        raise AssertionError("the chip sent %#06x after the refusal" % opcode)
    except TimeoutError:
        pass
    print("firmware-hci: refused advertising parameters: %s" % line)
    sys.exit(0)

if scenario == "silent":
    controller.silent.add(RESET)
    controller.serve_commands(until=RESET)
    line = expect_line("hosted: stopped", timeout=15.0)
    assert line == "hosted: stopped: no answer to opcode 0x0c03", line
    print("firmware-hci: a controller that never answers: %s" % line)
    sys.exit(0)

assert scenario == "link", scenario
expect_line("hosted: BLE host on H4, 0 bond(s) in flash")
controller.serve_commands(until=LE_SET_ADV_ENABLE)
opcodes = [opcode for opcode, _ in controller.commands]
assert opcodes[0] == RESET, "the first command is %#06x, not HCI Reset" % opcodes[0]
for needed in (READ_LOCAL_FEATURES, LE_READ_BUFFER_SIZE_V2, LE_READ_BUFFER_SIZE, READ_BD_ADDR, SET_EVENT_MASK,
               LE_SET_EVENT_MASK, LE_SET_ADV_PARAMETERS, LE_SET_ADV_DATA, LE_SET_SCAN_RESPONSE):
    assert needed in opcodes, "bring-up never sent %#06x: %s" % (needed, [hex(o) for o in opcodes])
assert opcodes.index(LE_READ_BUFFER_SIZE_V2) < opcodes.index(LE_READ_BUFFER_SIZE), "v1 only after v2 was refused"
assert opcodes.index(LE_SET_ADV_PARAMETERS) < opcodes.index(LE_SET_ADV_DATA) < opcodes.index(LE_SET_ADV_ENABLE)
parameters = dict(controller.commands)
minimum, maximum, kind, own, peer_type = struct.unpack("<HHBBB", parameters[LE_SET_ADV_PARAMETERS][:7])
channel_map, policy = parameters[LE_SET_ADV_PARAMETERS][13], parameters[LE_SET_ADV_PARAMETERS][14]
assert kind == 0x00, "advertising type %#x, not connectable undirected (ADV_IND)" % kind
assert 0x20 <= minimum <= maximum <= 0x4000, "advertising interval %#x…%#x" % (minimum, maximum)
assert channel_map == 0x07 and policy == 0x00, "channel map %#x, filter policy %#x" % (channel_map, policy)
advertised = advertising_structures(parameters[LE_SET_ADV_DATA])
assert advertised[0x01] == [bytes([0x06])], "Flags %s (LE General Discoverable, BR/EDR not supported)" % advertised.get(0x01)
assert any(b"\x0d\x18" in uuids for uuids in advertised.get(0x03, []) + advertised.get(0x02, [])), "no Heart Rate UUID: %s" % advertised
assert any(BAND_SERVICE in uuids for uuids in advertised.get(0x07, []) + advertised.get(0x06, [])), "no band service UUID: %s" % advertised
response = advertising_structures(parameters[LE_SET_SCAN_RESPONSE])
assert response.get(0x09) == [b"BandKit M4"], "scan response name %s" % response
assert parameters[LE_SET_ADV_ENABLE] == b"\x01"
assert expect_line("hosted: controller ready") == "hosted: controller ready, address 112233445566, ACL 27 B x 4"
expect_line("hosted: advertising")

controller.connect()
expect_line("hosted: connected, handle 64, central 112233445566, interval 24")
answer = controller.att(bytes([0x02]) + struct.pack("<H", 247))                        # Exchange MTU Request
assert answer == bytes([0x03]) + struct.pack("<H", 247), "Exchange MTU Response %s" % answer.hex()
answer = controller.att(bytes([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]))               # Read By Group Type, primary services
assert answer[0] == 0x11 and answer[1] == 6, "Read By Group Type Response %s" % answer.hex()
groups = [struct.unpack("<HHH", answer[2 + 6 * i:8 + 6 * i]) for i in range((len(answer) - 2) // 6)]
assert [g[2] for g in groups] == [0x1800, 0x180A, 0x180F], "primary services %s" % groups
answer = controller.att(bytes([0x0A, 0x03, 0x00]))                                     # Read: Device Name
assert answer == b"\x0b" + b"BandKit M4", "Device Name %s" % answer
answer = controller.att(bytes([0x0A, 0x40, 0x00]))                                     # Read: no such handle
assert answer == bytes([0x01, 0x0A, 0x40, 0x00, 0x01]), "error for handle 0x40: %s" % answer.hex()

controller.disconnect()
expect_line("hosted: disconnected, handle 64, reason 0x13")
assert controller.serve_commands(until=LE_SET_ADV_ENABLE) == b"\x01", "advertising not enabled again"

before = len(controller.commands)
controller.event(0x10, bytes([0x42]))                                                  # Hardware Error
controller.serve_commands(until=LE_SET_ADV_ENABLE)
again = [opcode for opcode, _ in controller.commands[before:]]
assert again[0] == RESET, "after a Hardware Error the first command is %#06x" % again[0]
print("firmware-hci: bring-up (%d commands), advertising checked, a link: MTU 247, 3 services in %d-byte ACL fragments, "
      "name read, advertising again after the disconnect, brought up again after a Hardware Error" % (before, controller.acl_length))
