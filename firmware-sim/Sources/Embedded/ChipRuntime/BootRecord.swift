import BandWire

/// What the firmware keeps in flash across resets today: its boot count (the band's boot epoch:
/// every reset starts a new one, so minute records from different boots never collide), written
/// alternately to two pages so a reset during a write leaves the previous record intact.
///
/// Record layout at the start of its page (little-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic `BKB1` |
/// | 4 | 4 | sequence (increases with every write; the larger valid one wins) |
/// | 8 | 4 | boot count |
/// | 12 | 4 | CRC-32 (BandWire's, IEEE) of bytes 0–11 |
///
/// A page that is all 0xFF is erased (not damage). A page with anything else that fails the magic
/// or the CRC is damage: counted, reported over the debug channel (message 0x86), and the other
/// page's record used; if neither is valid the firmware starts at boot count 1. Never a trap, so
/// a corrupt page cannot make a crash loop.
public struct BootRecord: Equatable {
    public static let byteCount = 16
    static let magic: UInt32 = 0x3142_4B42   // "BKB1" little-endian
    /// The two pages it alternates between.
    public static let pageCount = 2

    public var sequence: UInt32
    public var bootCount: UInt32

    public init(sequence: UInt32, bootCount: UInt32) {
        self.sequence = sequence
        self.bootCount = bootCount
    }

    /// What reading both pages found.
    public struct Recovery: Equatable {
        /// The newest valid record, nil when neither page held one.
        public var newest: BootRecord?
        /// Which page it was in.
        public var page: Int
        /// Pages neither erased nor valid.
        public var damagedPages: UInt32
    }

    /// The record in `bytes` (16 bytes), `.erased` when they are all 0xFF, `.damaged` otherwise.
    enum Parsed: Equatable { case record(BootRecord), erased, damaged }

    static func parse(_ bytes: UnsafeRawBufferPointer) -> Parsed {
        guard bytes.count >= byteCount else { return .damaged }
        if bytes[0..<byteCount].allSatisfy({ $0 == 0xFF }) { return .erased }
        func word(_ offset: Int) -> UInt32 {
            UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        }
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(rebasing: bytes[0..<12]))
        guard word(0) == magic, word(12) == crc.value else { return .damaged }
        return .record(BootRecord(sequence: word(4), bootCount: word(8)))
    }

    func encode(into output: UnsafeMutableRawBufferPointer) {
        func put(_ value: UInt32, at offset: Int) {
            for byte in 0..<4 { output[offset + byte] = UInt8(truncatingIfNeeded: value >> UInt32(8 * byte)) }
        }
        put(Self.magic, at: 0)
        put(sequence, at: 4)
        put(bootCount, at: 8)
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(output)[0..<12]))
        put(crc.value, at: 12)
    }

    /// Reads both pages and picks the newest valid record.
    public static func recover<B: Board>(from board: inout B) -> Recovery {
        var recovery = Recovery(newest: nil, page: 0, damagedPages: 0)
        var bytes: (UInt64, UInt64) = (0, 0)   // 16 bytes
        for page in 0..<pageCount {
            let parsed = withUnsafeMutableBytes(of: &bytes) { raw in
                board.flashRead(page: page, offset: 0, into: raw)
                return parse(UnsafeRawBufferPointer(raw))
            }
            switch parsed {
            case .erased:
                break
            case .damaged:
                recovery.damagedPages += 1
            case .record(let record):
                if recovery.newest == nil || record.sequence > recovery.newest!.sequence {
                    recovery.newest = record
                    recovery.page = page
                }
            }
        }
        return recovery
    }

    /// Starts a boot: recovers, then writes the next record (boot count + 1) to the page the newest
    /// record is not in, erasing it first. Returns the new record and what recovery found.
    public static func boot<B: Board>(on board: inout B) -> (record: BootRecord, recovery: Recovery) {
        let recovery = recover(from: &board)
        let previous = recovery.newest
        let record = BootRecord(sequence: (previous?.sequence ?? 0) &+ 1, bootCount: (previous?.bootCount ?? 0) &+ 1)
        let target = previous == nil ? 0 : 1 - recovery.page
        board.flashErase(page: target)
        var bytes: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            record.encode(into: raw)
            board.flashProgram(page: target, offset: 0, UnsafeRawBufferPointer(raw))
        }
        return (record, recovery)
    }
}
