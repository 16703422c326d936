// Compiled by scripts/check-embedded.sh with Embedded Swift for a Cortex-M4: the band's BLE host
// (BandLEHost) over a one-attribute source, a UART sink and a one-bond store, so every generic
// path of LEHost — bring-up, events, ACL, L2CAP, signaling, SMP, notifications — is specialized
// and checked against the Embedded subset. Not linked into anything.
import BandATT
import BandGATTServer
import BandLEHost
import BandWire

struct ProbeAttributes: GATTAttributeSource {
    var attributeCount: Int { 1 }
    func attribute(at index: Int) -> GATTServerAttribute { GATTServerAttribute(handle: 1, type: BluetoothUUID(0x2A00)) }
    func firstIndex(atOrAfter handle: UInt16) -> Int { handle <= 1 ? 0 : 1 }
    func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R {
        var name: (UInt8, UInt8) = (0x42, 0x4B)
        return withUnsafeBytes(of: &name) { body($0) }
    }
    mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> Bool {
        throw .writeNotPermitted
    }
}

struct ProbeBonds: LEBondStore {
    var kept: LEBond?
    func bond(with peer: LEAddress) -> LEBond? { kept?.peer == peer ? kept : nil }
    mutating func save(_ bond: LEBond) -> Bool { kept = bond; return true }
}

/// Counts what would go to the UART; the chip's own IO writes it there.
struct ProbeIO: LEHostIO {
    var transmitted = 0
    var reported = 0
    var bonds = ProbeBonds()
    mutating func transmit(_ h4Packet: UnsafeRawBufferPointer) { transmitted += h4Packet.count }
    mutating func report<WriteEffect>(_ event: LEHostEvent<WriteEffect>) { reported += 1 }
}

/// Starts a host in `memory` (LEHostMemory.size(attMTU: 247) bytes) and feeds it `input`.
@_cdecl("le_host_probe")
public func leHostProbe(_ memory: UnsafeMutableRawPointer, _ memoryLength: Int, _ input: UnsafeRawPointer, _ inputLength: Int) -> Int {
    let name: (UInt8, UInt8) = (0x42, 0x4B)
    let configuration = withUnsafeBytes(of: name) { LEHostConfiguration.band(name: $0, services: CollectionOfOne(BluetoothUUID(0x180D))) }
    let region = UnsafeMutableRawBufferPointer(start: memory, count: memoryLength)
    var host = LEHost<ProbeAttributes>(configuration: configuration, memory: LEHostMemory(region: region, attMTU: configuration.attMTU))
    var io = ProbeIO()
    var source = ProbeAttributes()
    host.start(now: 0, io: &io)
    host.receive(UnsafeRawBufferPointer(start: input, count: inputLength), now: 1, source: &source, io: &io)
    host.tick(now: 2, io: &io)
    let value: (UInt8, UInt8) = (1, 2)
    _ = withUnsafeBytes(of: value) { host.notify(handle: 1, value: $0, io: &io) }
    _ = host.requestConnectionParameters(ConnectionParameterUpdateRequest(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 400), io: &io)
    return io.transmitted + io.reported
}
