import BandProtocol
import BandWire

/// One history transfer as it arrives: checks every data packet against what the fetch response
/// announced and keeps the records until the band's Transfer Complete vouches for them.
///
/// Checked, in order of arrival (docs/protocol.md, "History Control Point"):
/// - packet numbers start at 0 and count up by one (a gap means a dropped notification);
/// - each packet decodes (whole 16-byte records, valid minute starts and heart-rate summaries);
/// - no more records than announced;
/// - at the end: status success, packet and record counts equal to what arrived, and the CRC-32
///   over the record bytes equal to the one computed here.
///
/// Any failure discards the whole transfer: nothing from it is stored or acknowledged, and the
/// next fetch starts again from the cursor. Records are accumulated into an array sized once
/// from the announced count.
public struct HistoryTransfer: Sendable {
    public let announced: HistoryFetchResponse
    public private(set) var records: [MinuteRecord] = []
    public private(set) var packets: UInt32 = 0
    private var crc = CRC32()

    public init(announced: HistoryFetchResponse) {
        self.announced = announced
        records.reserveCapacity(Int(min(announced.count, 1 << 16)))
    }

    /// The sequence number just past the last record received so far.
    public var endSequence: UInt32 { announced.firstSequence &+ UInt32(records.count) }
    public var isFull: Bool { UInt32(records.count) >= announced.count }

    /// Takes one History Data notification value.
    public mutating func receive(_ value: UnsafeRawBufferPointer) throws(HistoryTransferError) {
        let packet: HistoryDataPacket
        do { packet = try HistoryDataPacket(parsingAll: value) } catch {
            throw .malformedPacket(number: packets, error)
        }
        guard packet.packetNumber == UInt16(truncatingIfNeeded: packets) else {
            throw .packetOutOfOrder(expected: UInt16(truncatingIfNeeded: packets), received: packet.packetNumber)
        }
        guard UInt32(records.count) + UInt32(packet.recordCount) <= announced.count else {
            throw .tooManyRecords(announced: announced.count)
        }
        for index in 0..<packet.recordCount {
            do { records.append(try packet.record(at: index)) } catch {
                throw .malformedPacket(number: packets, error)
            }
        }
        packet.recordBytes.withUnsafeBytes { crc.update($0) }
        packets += 1
    }

    /// Checks the band's summary of the transfer; on success the records may be stored.
    public func verify(_ complete: HistoryTransferComplete) throws(HistoryTransferError) {
        guard complete.status == .success else { throw .bandAborted(complete.status) }
        guard complete.recordCount == announced.count, UInt32(records.count) == announced.count else {
            throw .recordCountMismatch(announced: announced.count, band: complete.recordCount, received: UInt32(records.count))
        }
        guard complete.packetCount == packets else {
            throw .packetCountMismatch(band: complete.packetCount, received: packets)
        }
        guard complete.crc == crc.value else {
            throw .crcMismatch(band: complete.crc, computed: crc.value)
        }
    }

    /// The CRC-32 over the records received so far (what the acknowledgement repeats).
    public var checksum: UInt32 { crc.value }
}

/// Why a history transfer was discarded.
public enum HistoryTransferError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformedPacket(number: UInt32, ParseError)
    case packetOutOfOrder(expected: UInt16, received: UInt16)
    case tooManyRecords(announced: UInt32)
    case recordCountMismatch(announced: UInt32, band: UInt32, received: UInt32)
    case packetCountMismatch(band: UInt32, received: UInt32)
    case crcMismatch(band: UInt32, computed: UInt32)
    case bandAborted(HistoryStatus)

    public var description: String {
        switch self {
        case .malformedPacket(let number, let error): return "history data packet \(number) is malformed: \(error)"
        case .packetOutOfOrder(let expected, let received): return "history data packet \(received) arrived where \(expected) was due (a notification was lost)"
        case .tooManyRecords(let announced): return "more records arrived than the \(announced) announced"
        case .recordCountMismatch(let announced, let band, let received): return "record count mismatch: announced \(announced), band says \(band) sent, \(received) received"
        case .packetCountMismatch(let band, let received): return "packet count mismatch: band says \(band) sent, \(received) received"
        case .crcMismatch(let band, let computed): return "CRC-32 mismatch: band 0x\(String(band, radix: 16)), received data 0x\(String(computed, radix: 16))"
        case .bandAborted(let status): return "the band ended the transfer: \(status)"
        }
    }
}
