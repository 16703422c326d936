import BandATT
import BandWire

/// Learns which attribute each handle is from the GATT discovery a trace contains, and tells
/// for each ATT PDU which handle it concerns and that handle's type (UUID).
///
/// Works like Wireshark's `packet-btatt.c`: a response does not repeat what was asked, so
/// requests are remembered per (adapter, connection, requesting side) until their response
/// or Error Response arrives. Then:
///
/// | response | learns |
/// |---|---|
/// | Read By Group Type (0x11) | each group's start handle is a declaration of the requested group type (0x2800) |
/// | Read By Type (0x09) | each handle has the requested type; for 0x2803 also value handle → characteristic UUID |
/// | Find Information (0x05) | each handle → its UUID (descriptors such as 0x2902) |
/// | Find By Type Value (0x07) | each found handle has the requested type |
///
/// Tables are kept per peer device when the trace shows the connection being made (so a
/// reconnection that skips discovery, as bonded phones do, still resolves), else per
/// connection. `--map HANDLE=UUID` overrides win over anything learned, on every connection.
/// Nothing is allocated for a PDU once its connection's entries exist.
public final class AttributeDiscovery {
    enum TableKey: Hashable {
        case peer(LEAddress)
        case connection(adapter: UInt16, connection: UInt16)
    }

    struct TransactionKey: Hashable {
        var adapter: UInt16
        var connection: UInt16
        /// The side that sent the request (or the indication).
        var direction: TraceDirection
    }

    struct Outstanding {
        var opcode: UInt8 = 0
        var handle: UInt16?
        var type: BluetoothUUID?
    }

    public let overrides: [UInt16: BluetoothUUID]
    // Unchecked: see "Exclusivity" in docs/performance.md (one thread, no callback during an access).
    @exclusivity(unchecked) private var tables: [TableKey: AttributeTable] = [:]
    @exclusivity(unchecked) private var requests: [TransactionKey: Outstanding] = [:]
    @exclusivity(unchecked) private var indications: [TransactionKey: UInt16] = [:]
    /// The last handle resolved, and what to: notifications come in long runs on one handle.
    @exclusivity(unchecked) private var lastResolution: (key: TableKey, handle: UInt16, type: BluetoothUUID?)?

    public init(overrides: [UInt16: BluetoothUUID] = [:]) {
        self.overrides = overrides
    }

    /// What is known about `peer`'s attributes (tests, summaries).
    public func table(for peer: LEAddress) -> AttributeTable? { tables[.peer(peer)] }

    /// What is known about the attributes behind a connection whose peer was not seen.
    public func table(adapter: UInt16, connection: UInt16) -> AttributeTable? {
        tables[.connection(adapter: adapter, connection: connection)]
    }

    /// Learns from `event` and returns the handle it concerns and that handle's type.
    public func observe(_ event: ATTTraceEvent, layout: ATTPDULayout) -> (handle: UInt16?, type: BluetoothUUID?) {
        let opcode = layout.opcode
        var handle = layout.handle
        switch opcode.rawValue {
        case 0x1B, 0x52:
            break
        case 0x1D:
            indications[TransactionKey(adapter: event.adapter, connection: event.connection, direction: event.direction)] = handle
        case 0x1E:
            handle = indications[TransactionKey(adapter: event.adapter, connection: event.connection, direction: event.direction.reversed)] ?? nil
        default:
            if opcode.isRequest {
                remember(request: event, layout: layout)
            } else if opcode.isResponse {
                let key = TransactionKey(adapter: event.adapter, connection: event.connection, direction: event.direction.reversed)
                if let request = requests[key], request.opcode != 0 {
                    requests[key] = Outstanding()
                    if handle == nil, opcode != .errorResponse { handle = request.handle }
                    learn(from: event, request: request)
                }
            }
        }
        guard let handle else { return (nil, nil) }
        if !overrides.isEmpty, let type = overrides[handle] { return (handle, type) }
        let key = tableKey(event)
        if let last = lastResolution, last.handle == handle, last.key == key { return (handle, last.type) }
        let type = tables[key]?.type(of: handle)
        lastResolution = (key, handle, type)
        return (handle, type)
    }

    /// Forgets a connection's outstanding transactions and, if its peer is unknown, its table.
    public func connectionClosed(adapter: UInt16, connection: UInt16) {
        for direction in [TraceDirection.tx, .rx] {
            let key = TransactionKey(adapter: adapter, connection: connection, direction: direction)
            requests[key] = nil
            indications[key] = nil
        }
        tables[.connection(adapter: adapter, connection: connection)] = nil
        lastResolution = nil
    }

    private func tableKey(_ event: ATTTraceEvent) -> TableKey {
        if let peer = event.peer { return .peer(peer) }
        return .connection(adapter: event.adapter, connection: event.connection)
    }

    private func remember(request event: ATTTraceEvent, layout: ATTPDULayout) {
        var outstanding = Outstanding(opcode: layout.opcode.rawValue, handle: layout.handle, type: nil)
        let pdu = event.pdu
        switch layout.opcode {
        case .readByTypeRequest, .readByGroupTypeRequest:
            // opcode, start u16, end u16, then a 2- or 16-byte UUID.
            var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: pdu[5...]))
            outstanding.type = try? BluetoothUUID(parsing: &cursor, width: cursor.remaining)
        case .findByTypeValueRequest:
            if pdu.count >= 7 { outstanding.type = BluetoothUUID(UInt16(pdu[5]) | UInt16(pdu[6]) << 8) }
        default:
            break
        }
        requests[TransactionKey(adapter: event.adapter, connection: event.connection, direction: event.direction)] = outstanding
    }

    private func learn(from event: ATTTraceEvent, request: Outstanding) {
        let opcode = ATTOpcode(rawValue: event.pdu[0])
        guard opcode == .readByGroupTypeResponse || opcode == .readByTypeResponse
                || opcode == .findInformationResponse || opcode == .findByTypeValueResponse else { return }
        // Layouts were validated by ATTPDULayout; a failure here means nothing to learn.
        guard let pdu = try? ATTPDU(bytes: event.pdu) else { return }
        let key = tableKey(event)
        lastResolution = nil
        var table = tables[key] ?? AttributeTable()
        tables[key] = nil  // keep the table uniquely referenced while it grows
        switch pdu {
        case .readByGroupTypeResponse(let response):
            let groupType = request.type ?? BluetoothUUID(0x2800)
            for entry in response.entries { table.learn(entry.handle, is: groupType) }
        case .readByTypeResponse(let response):
            guard let type = request.type else { break }
            let characteristic = BluetoothUUID(0x2803)
            response.forEachEntry { (handle, value) in
                table.learn(handle, is: type)
                // Characteristic declaration value: properties u8, value handle u16, UUID (2 or 16 bytes).
                if type == characteristic, value.count == 5 || value.count == 19 {
                    var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: value[3...]))
                    if let uuid = try? BluetoothUUID(parsing: &cursor, width: value.count - 3) {
                        table.learn(UInt16(value[1]) | UInt16(value[2]) << 8, is: uuid)
                    }
                }
            }
        case .findInformationResponse(let response):
            for entry in response.entries { table.learn(entry.handle, is: entry.type) }
        case .findByTypeValueResponse(let response):
            if let type = request.type {
                for entry in response.entries { table.learn(entry.handle, is: type) }
            }
        default:
            break
        }
        tables[key] = table
    }
}
