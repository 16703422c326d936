// libFuzzer harness for the band's own BLE host (BandLEHost.LEHost): the controller is the
// attacker. The input is the byte stream of a controller's UART — HCI events and ACL data in
// H4 framing — fed in pieces to a host that starts, by the first byte's choice, before
// bring-up, advertising, or connected with ATT_MTU 247; the second byte picks the piece size
// (1–64 bytes). Under the host sits the unchanged GATT server over a small static table.
//
// Properties checked on every input:
//  1. nothing traps, whatever the controller says;
//  2. every H4 packet the host sends is well formed: a command whose length byte matches, or
//     an ACL packet for the connection's handle with data ≤ the controller's ACL length;
//  3. ACL credits stay within 0…total, queued commands within the ring, and the host never
//     has more ACL packets outstanding than the controller announced;
//  4. at most one connection, and only while running;
//  5. the same input twice gives the same packets and events (no hidden state, no allocation
//     that differs by run: the host's memory is one region allocated here, once).
import BandATT
import BandGATTServer
import BandHCI
import BandLEHost
import BandWire

struct Table: GATTAttributeSource {
    typealias WriteEffect = UInt16
    static let types: [UInt16] = [0x2800, 0x2803, 0x2A00, 0x2800, 0x2803, 0x2A29, 0x2902]
    var values: [[UInt8]] = [[0x00, 0x18], [0x0A, 0x03, 0x00, 0x00, 0x2A], Array("Band".utf8), [0x0A, 0x18],
                             [0x12, 0x06, 0x00, 0x29, 0x2A], Array(repeating: 0x41, count: 200), [0, 0]]
    var attributeCount: Int { Self.types.count }
    func attribute(at index: Int) -> GATTServerAttribute {
        let type = BluetoothUUID(Self.types[index])
        switch index {
        case 0: return GATTServerAttribute(handle: 1, type: type, serviceUUID: BluetoothUUID(0x1800), groupEnd: 3)
        case 3: return GATTServerAttribute(handle: 4, type: type, serviceUUID: BluetoothUUID(0x180A), groupEnd: 7)
        default: return GATTServerAttribute(handle: UInt16(index + 1), type: type)
        }
    }
    func firstIndex(atOrAfter handle: UInt16) -> Int { max(0, min(Int(handle) - 1, Self.types.count)) }
    func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R { values[index].withUnsafeBytes(body) }
    mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> UInt16 {
        guard index == 2 || index == 6, value.count <= 20 else { throw .writeNotPermitted }
        values[index] = Array(value)
        return UInt16(index + 1)
    }
}

struct OneBond: LEBondStore {
    var kept: LEBond?
    func bond(with peer: LEAddress) -> LEBond? { kept?.peer == peer ? kept : nil }
    mutating func save(_ bond: LEBond) -> Bool { kept = bond; return true }
}

struct IO: LEHostIO {
    var sent: [[UInt8]] = []
    /// Each event as a small number (its case), cheap enough for millions of runs.
    var events: [Int] = []
    var bonds = OneBond()
    mutating func transmit(_ h4Packet: UnsafeRawBufferPointer) { sent.append(Array(h4Packet)) }
    mutating func report<WriteEffect>(_ event: LEHostEvent<WriteEffect>) {
        switch event {
        case .ready: events.append(1)
        case .failed: events.append(2)
        case .controllerError: events.append(3)
        case .advertising: events.append(4)
        case .connected(let handle, _, _, _, _): events.append(5 << 16 | Int(handle))
        case .disconnected(let handle, _): events.append(6 << 16 | Int(handle))
        case .mtuChanged(let mtu): events.append(7 << 16 | mtu)
        case .gatt: events.append(8)
        case .connectionParametersAnswered: events.append(9)
        case .dropped: events.append(10)
        case .displayPasskey(let passkey): events.append(11 << 32 | Int(passkey))
        case .pairingFailed(let failure): events.append(12 << 16 | Int(failure.reason))
        case .encrypted: events.append(13)
        case .bonded: events.append(14)
        case .pairingThrottled(let wait): events.append(15 << 32 | Int(wait))
        case .dataLengthChanged(let transmit, let receive): events.append(16 << 32 | transmit << 16 | receive)
        }
    }
}

let attMTU = 247
nonisolated(unsafe) let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: LEHostMemory.size(attMTU: attMTU), alignment: 8)

func hex(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var digits = text.utf8.filter { $0 != 32 }.makeIterator()
    func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : c - 87 }
    while let high = digits.next(), let low = digits.next() { out.append(nibble(high) << 4 | nibble(low)) }
    return out
}

let bringUpHex: [String] = [
    "04 0e 04 01 03 0c 00", "04 0e 0c 01 01 10 00 0d 00 00 0d 5f 00 00 00", "04 0e 0c 01 03 10 00 00 00 00 00 40 00 00 00",
    "04 0e 0a 01 60 20 00 1b 00 04 00 00 00", "04 0e 0a 01 09 10 00 66 55 44 33 22 11", "04 0e 04 01 01 0c 00", "04 0e 04 01 01 20 00",
    "04 0e 04 01 06 20 00", "04 0e 04 01 08 20 00", "04 0e 04 01 09 20 00", "04 0e 04 01 0a 20 00",
]
let connectHex = ["04 3e 13 01 00 40 00 01 01 66 55 44 33 22 11 18 00 00 00 48 00 00", "02 40 20 07 00 03 00 04 00 02 f7 00",
               "04 13 05 01 40 00 01 00"]

/// The scripts as bytes, parsed once.
let scripts: [[[UInt8]]] = [[], bringUpHex.map(hex), (bringUpHex + connectHex).map(hex)]

func check(_ host: LEHost<Table>, _ io: IO, from: Int) {
    for packet in io.sent[from...] {
        precondition(!packet.isEmpty)
        switch packet[0] {
        case 0x01:
            precondition(packet.count >= 4 && Int(packet[3]) == packet.count - 4, "a command whose length byte is wrong")
        case 0x02:
            precondition(packet.count >= 5, "a short ACL packet")
            let handle = (UInt16(packet[1]) | UInt16(packet[2]) << 8) & 0x0FFF
            let length = Int(packet[3]) | Int(packet[4]) << 8
            precondition(length == packet.count - 5 && length <= host.aclCredits.packetLength, "ACL length \(length)")
            precondition(handle == 0x40, "ACL for handle \(handle)")
        default:
            preconditionFailure("the host sent H4 type \(packet[0])")
        }
    }
    precondition(host.aclCredits.available >= 0 && host.aclCredits.available <= host.aclCredits.total)
    precondition(host.commands.queuedCount <= HCICommandFlow.slotCount && host.commands.outstandingCount <= HCICommandFlow.slotCount)
    precondition(host.connection == nil || host.phase == .running, "a connection while \(host.phase)")
}

func run(_ input: UnsafeRawBufferPointer, start: Int, chunk: Int) -> ([[UInt8]], [Int]) {
    var configuration = Array("Band".utf8).withUnsafeBytes {
        LEHostConfiguration.band(name: $0, services: [BluetoothUUID(0x180D)], attMTU: attMTU, ioCapability: 0x00)
    }
    configuration.dataLengthOctets = 251
    var host = LEHost<Table>(configuration: configuration, memory: LEHostMemory(region: memory, attMTU: attMTU))
    var io = IO()
    var table = Table()
    var now: UInt32 = 0
    host.start(now: now, io: &io)
    for packet in scripts[start] { packet.withUnsafeBytes { host.receive($0, now: now, source: &table, io: &io) } }
    let scripted = io.sent.count
    var offset = 0
    while offset < input.count {
        let end = min(offset + chunk, input.count)
        now &+= 7
        host.receive(UnsafeRawBufferPointer(rebasing: input[offset..<end]), now: now, source: &table, io: &io)
        host.tick(now: now, io: &io)
        offset = end
    }
    check(host, io, from: scripted)
    return (io.sent, io.events)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLEHost(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 2, let data else { return 0 }
    let start = Int(data[0] % 3)
    let chunk = Int(data[1] % 64) + 1
    let input = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
    let first = run(input, start: start, chunk: chunk)
    let second = run(input, start: start, chunk: chunk)
    precondition(first.0 == second.0 && first.1 == second.1, "the same input gave different output")
    return 0
}
