import BandATT
import BandGATTServer
import BandLEHost
import BandTestSupport
import BandWire

/// A tiny GATT table: GAP with the device name, Device Information with a 60-byte
/// manufacturer name (long enough to need three 27-byte ACL fragments).
///
/// | handle | attribute |
/// |---|---|
/// | 1 | primary service 0x1800 (end 3) |
/// | 2 | characteristic declaration: read, value 3, 0x2A00 |
/// | 3 | Device Name "Band" (writable) |
/// | 4 | primary service 0x180A (end 6) |
/// | 5 | characteristic declaration: read, value 6, 0x2A29 |
/// | 6 | Manufacturer Name, 60 bytes 0x41… |
struct HostTestAttributes: GATTAttributeSource {
    typealias WriteEffect = UInt16
    static let rows: [(GATTServerAttribute, [UInt8])] = [
        (GATTServerAttribute(handle: 1, type: BluetoothUUID(0x2800), serviceUUID: BluetoothUUID(0x1800), groupEnd: 3), [0x00, 0x18]),
        (GATTServerAttribute(handle: 2, type: BluetoothUUID(0x2803)), [0x0A, 0x03, 0x00, 0x00, 0x2A]),
        (GATTServerAttribute(handle: 3, type: BluetoothUUID(0x2A00)), Array("Band".utf8)),
        (GATTServerAttribute(handle: 4, type: BluetoothUUID(0x2800), serviceUUID: BluetoothUUID(0x180A), groupEnd: 6), [0x0A, 0x18]),
        (GATTServerAttribute(handle: 5, type: BluetoothUUID(0x2803)), [0x02, 0x06, 0x00, 0x29, 0x2A]),
        (GATTServerAttribute(handle: 6, type: BluetoothUUID(0x2A29)), (0..<60).map { UInt8(0x41 + $0 % 26) }),
    ]
    var name = Array("Band".utf8)

    var attributeCount: Int { Self.rows.count }
    func attribute(at index: Int) -> GATTServerAttribute { Self.rows[index].0 }
    func firstIndex(atOrAfter handle: UInt16) -> Int { Self.rows.firstIndex { $0.0.handle >= handle } ?? Self.rows.count }
    func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R {
        let value = index == 2 ? name : Self.rows[index].1
        return value.withUnsafeBytes(body)
    }
    mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> UInt16 {
        guard index == 2 else { throw .writeNotPermitted }
        name = Array(value)
        return Self.rows[index].0.handle
    }
}

/// Bonds in memory, at most `capacity`.
struct MemoryBondStore: LEBondStore {
    var bonds: [LEBond] = []
    var capacity = 4
    func bond(with peer: LEAddress) -> LEBond? { bonds.first { $0.peer == peer } }
    mutating func save(_ bond: LEBond) -> Bool {
        bonds.removeAll { $0.peer == bond.peer }
        guard bonds.count < capacity else { return false }
        bonds.append(bond)
        return true
    }
}

/// The host's outside world in a test: every H4 packet it sends, every event it reports.
struct ScriptedIO: LEHostIO {
    var sent: [[UInt8]] = []
    var events: [LEHostEvent<UInt16>] = []
    var bonds = MemoryBondStore()
    /// When true the IO takes every ATT PDU itself (an owner with its own GATT server).
    var servesATT = false
    var servedATT: [[UInt8]] = []

    mutating func serveATT(_ pdu: UnsafeRawBufferPointer) -> Bool {
        guard servesATT else { return false }
        servedATT.append(Array(pdu))
        return true
    }

    mutating func transmit(_ h4Packet: UnsafeRawBufferPointer) { sent.append(Array(h4Packet)) }
    mutating func report<WriteEffect>(_ event: LEHostEvent<WriteEffect>) {
        guard let event = event as? LEHostEvent<UInt16> else { fatalError("unexpected write effect type") }
        events.append(event)
    }
}

/// A host over ``HostTestAttributes`` with a scripted controller: bytes in, bytes out, as
/// BlueZ's unit/test-gatt.c scripts a link.
struct ScriptedHost {
    static let name = Array("Band".utf8)
    let memory: UnsafeMutableRawBufferPointer
    var host: LEHost<HostTestAttributes>
    var io = ScriptedIO()
    var source = HostTestAttributes()
    var now: UInt32 = 0

    init(configuration: LEHostConfiguration? = nil) {
        let configuration = configuration ?? ScriptedHost.name.withUnsafeBytes {
            LEHostConfiguration.band(name: $0, services: [BluetoothUUID(0x180D)], attMTU: 247, ioCapability: 0x00)
        }
        memory = .allocate(byteCount: LEHostMemory.size(attMTU: configuration.attMTU), alignment: 8)
        host = LEHost(configuration: configuration, memory: LEHostMemory(region: memory, attMTU: configuration.attMTU))
    }

    mutating func start() {
        host.start(now: now, io: &io)
    }

    /// Feeds the controller's bytes (hex) to the host.
    mutating func controller(_ hex: String) {
        let input = bytes(hex)
        input.withUnsafeBytes { host.receive($0, now: now, source: &source, io: &io) }
    }

    /// Feeds raw bytes.
    mutating func controller(raw input: [UInt8]) {
        input.withUnsafeBytes { host.receive($0, now: now, source: &source, io: &io) }
    }

    /// What the host sent since the last call, each packet as hex.
    mutating func takeSent() -> [String] {
        defer { io.sent.removeAll() }
        return io.sent.map { Hex.encode($0) }
    }

    mutating func takeEvents() -> [LEHostEvent<UInt16>] {
        defer { io.events.removeAll() }
        return io.events
    }

    /// Runs the whole bring-up with a well-behaved controller (ACL 27 bytes × `aclCount`).
    mutating func bringUp(aclCount: UInt8 = 3) {
        start()
        for (command, answer) in ScriptedHost.bringUpScript(aclCount: aclCount) {
            precondition(takeSent() == [compact(command)], "bring-up diverged at \(command)")
            controller(answer)
        }
        _ = takeSent()
        _ = takeEvents()
    }

    static let advertisingParameters = "01 06 20 0f a0 00 a0 00 00 00 00 00 00 00 00 00 00 07 00"
    /// Flags, the 0x180D UUID, padding; then the name in the scan response.
    static let advertisingData = "01 08 20 20 07 02 01 06 03 03 0d 18" + String(repeating: " 00", count: 24)
    static let scanResponse = "01 09 20 20 06 05 09 42 61 6e 64" + String(repeating: " 00", count: 25)

    /// (command the host sends, the controller's answer) for a whole bring-up.
    static func bringUpScript(aclCount: UInt8 = 3) -> [(String, String)] {
        [
            ("01 03 0c 00", "04 0e 04 01 03 0c 00"),
            ("01 01 10 00", "04 0e 0c 01 01 10 00 0d 00 00 0d 5f 00 00 00"),
            ("01 03 10 00", "04 0e 0c 01 03 10 00 00 00 00 00 40 00 00 00"),
            ("01 60 20 00", "04 0e 04 01 60 20 01"),
            ("01 02 20 00", "04 0e 07 01 02 20 00 1b 00 " + Hex.encode([aclCount])),
            ("01 09 10 00", "04 0e 0a 01 09 10 00 66 55 44 33 22 11"),
            ("01 01 0c 08 90 80 00 02 00 80 00 20", "04 0e 04 01 01 0c 00"),
            ("01 01 20 08 d5 03 00 00 00 00 00 00", "04 0e 04 01 01 20 00"),
            (advertisingParameters, "04 0e 04 01 06 20 00"),
            (advertisingData, "04 0e 04 01 08 20 00"),
            (scanResponse, "04 0e 04 01 09 20 00"),
            ("01 0a 20 01 01", "04 0e 04 01 0a 20 00"),
        ]
    }

    /// LE Connection Complete for handle 0x0040 from central 11:22:33:44:55:66 (random), peripheral role.
    static let connectionComplete = "04 3e 13 01 00 40 00 01 01 66 55 44 33 22 11 18 00 00 00 48 00 00"

    mutating func connect() {
        controller(ScriptedHost.connectionComplete)
        _ = takeEvents()
    }
}

/// Hex without spaces, the form ``ScriptedHost/takeSent()`` returns.
func compact(_ hex: String) -> String { Hex.encode(bytes(hex)) }
