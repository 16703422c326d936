import BandWire

/// The pcapng framer: turns a stream of bytes into packets, with "need more data" semantics
/// like ``BtsnoopRecordParser``.
///
/// Feed it whatever bytes are available; it returns the next packet (a view into those
/// bytes) and consumes everything up to the end of that packet's block, or returns nil when
/// the bytes end inside a block it must see whole. Blocks it does not need (Name Resolution,
/// Interface Statistics, Decryption Secrets, custom, unknown) are skipped by their length
/// as the bytes go by, never buffered, so any size costs only the reading. It keeps the block
/// index, packet index and file offset itself, so errors say where in the *file* they are.
///
/// Checks every length before trusting it (draft-ietf-opsawg-pcapng §4): total length ≥ 12
/// and a multiple of 4, equal to the copy at the block's end, fixed fields inside it,
/// captured length inside the block and ≤ ``maximumPacketLength``, parsed blocks ≤
/// ``maximumBlockLength``, options inside their block, at most ``maximumInterfaces``
/// interfaces per section. Several sections, each with its own byte order and interfaces,
/// follow one another.
public struct PcapngBlockParser: CaptureContainerFramer, Sendable {
    public static let format = CaptureFileError.Format.pcapng
    /// The largest packet BandKit reads (tshark's `WTAP_MAX_PACKET_SIZE_STANDARD`).
    public static let maximumPacketLength = 262_144
    /// The largest block BandKit parses whole: the largest packet plus 64 KiB of options.
    public static let maximumBlockLength = maximumPacketLength + 65_536 + PcapngEnhancedPacket.minimumLength
    public static let maximumInterfaces = 1024
    public static var maximumBufferedLength: Int { maximumBlockLength }

    /// Index of the next block (every block counts, the section headers too).
    public private(set) var blockIndex = 0
    /// Index of the next packet.
    public private(set) var packetIndex = 0
    /// File offset of the next unconsumed byte.
    public private(set) var offset = 0
    /// The current section's interfaces (empty before the first Section Header Block).
    public private(set) var interfaces: [PcapngInterfaceDescription] = []
    /// Sections begun so far.
    public private(set) var sections = 0
    private var order = PcapngByteOrder(bigEndian: false)
    private var skip: Skip?

    /// A block being skipped: how much body is left before its trailing length.
    private struct Skip: Sendable {
        var remaining: Int
        var length: UInt32
        var blockOffset: Int
    }

    public init() {
        interfaces.reserveCapacity(4)
    }

    public var errorPlace: (blockIndex: Int?, offset: Int) { (blockIndex, skip?.blockOffset ?? offset) }

    private func error(_ kind: CaptureFileError.Kind, at offset: Int? = nil) -> CaptureFileError {
        CaptureFileError(.pcapng, kind, blockIndex: blockIndex, offset: offset ?? self.offset)
    }

    /// Parses the first Section Header Block, confirming the file is pcapng. False when more
    /// bytes are needed.
    public mutating func parseFileHeader(_ input: inout ByteCursor) throws(CaptureFileError) -> Bool {
        if sections > 0 { return true }
        return try nextBlock(&input, stopAfterSectionHeader: true) == .progressed
    }

    /// The next packet, or nil when `input` ends inside a block that must be seen whole
    /// (everything before it consumed).
    public mutating func nextPacket(_ input: inout ByteCursor) throws(CaptureFileError) -> CapturePacket? {
        while true {
            var packet: CapturePacket?
            switch try nextBlock(&input, stopAfterSectionHeader: false, packet: &packet) {
            case .needMore: return nil
            case .progressed: if let packet { return packet }
            }
        }
    }

    private enum Step { case needMore, progressed }

    private mutating func nextBlock(_ input: inout ByteCursor, stopAfterSectionHeader: Bool) throws(CaptureFileError) -> Step {
        var ignored: CapturePacket?
        return try nextBlock(&input, stopAfterSectionHeader: stopAfterSectionHeader, packet: &ignored)
    }

    /// Consumes one block (or part of a skipped one); sets `packet` when the block held one.
    private mutating func nextBlock(_ input: inout ByteCursor, stopAfterSectionHeader: Bool,
                                    packet: inout CapturePacket?) throws(CaptureFileError) -> Step {
        if skip != nil { return try continueSkip(&input) }
        guard input.remaining >= 8 else { return .needMore }
        let base = input.bytes.baseAddress! + input.position
        let blockOffset = offset
        // The type is a palindrome for section headers, so it can be tested before the order is known.
        let isSectionHeader = base.loadUnaligned(as: UInt32.self) == PcapngBlockType.sectionHeader.rawValue
        if isSectionHeader {
            guard input.remaining >= 12 else { return .needMore }
            guard let sectionOrder = PcapngSectionHeader.byteOrder(base) else {
                throw error(.badByteOrderMagic(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self))),
                            at: blockOffset + 8)
            }
            let length = try checkedLength(sectionOrder.u32(base, 4), parsed: true)
            guard length >= PcapngSectionHeader.minimumLength else {
                throw error(.blockTooShort(type: PcapngBlockType.sectionHeader.rawValue, length: UInt32(length)))
            }
            guard input.remaining >= length else { return .needMore }
            try checkTrailer(base, length: length, order: sectionOrder)
            let header = PcapngSectionHeader(base, order: sectionOrder)
            guard header.majorVersion == 1 else {
                throw error(.unsupportedVersion(major: header.majorVersion, minor: header.minorVersion), at: blockOffset + 12)
            }
            order = sectionOrder
            interfaces.removeAll(keepingCapacity: true)
            sections += 1
            consume(&input, length)
            return .progressed
        }
        guard sections > 0 else { throw error(.badMagic) }
        if stopAfterSectionHeader { return .progressed }
        let type = PcapngBlockType(rawValue: order.u32(base, 0))
        let length = try checkedLength(order.u32(base, 4), parsed: type.isParsed)
        guard type.isParsed else {
            // Skipped as it streams past: header now, body as it comes, then the trailing length.
            skip = Skip(remaining: length - 12, length: UInt32(length), blockOffset: blockOffset)
            input.advance(8)
            offset += 8
            return try continueSkip(&input)
        }
        guard input.remaining >= length else { return .needMore }
        try checkTrailer(base, length: length, order: order)
        switch type {
        case .interfaceDescription:
            guard length >= PcapngInterfaceDescription.minimumLength else {
                throw error(.blockTooShort(type: type.rawValue, length: UInt32(length)))
            }
            let interface: PcapngInterfaceDescription
            do throws(PcapngInterfaceDescription.OptionError) {
                interface = try PcapngInterfaceDescription.parse(base, length: length, order: order)
            } catch {
                throw self.error(error.kind, at: blockOffset + error.optionOffset)
            }
            guard interfaces.count < Self.maximumInterfaces else { throw error(.tooManyInterfaces(limit: Self.maximumInterfaces)) }
            interfaces.append(interface)
        case .enhancedPacket, .obsoletePacket:
            guard length >= PcapngEnhancedPacket.minimumLength else {
                throw error(.blockTooShort(type: type.rawValue, length: UInt32(length)))
            }
            let interfaceID = PcapngEnhancedPacket.interfaceID(base, obsolete: type == .obsoletePacket, order: order)
            guard Int(interfaceID) < interfaces.count else {
                throw error(.unknownInterface(id: interfaceID, described: interfaces.count))
            }
            let captured = order.u32(base, 20)
            let available = length - PcapngEnhancedPacket.minimumLength
            guard captured <= Self.maximumPacketLength else {
                throw error(.packetTooLong(captured: captured, limit: Self.maximumPacketLength))
            }
            guard Int(captured) <= available else {
                throw error(.capturedLengthExceedsBlock(captured: captured, available: available))
            }
            let interface = interfaces[Int(interfaceID)]
            packet = CapturePacket(
                index: packetIndex, offset: blockOffset, dataOffset: blockOffset + PcapngEnhancedPacket.dataOffset,
                interfaceID: Int(interfaceID), linkType: interface.linkType,
                unixMicroseconds: interface.unixMicroseconds(PcapngEnhancedPacket.timestamp(base, order: order)),
                originalLength: Int(order.u32(base, 24)),
                data: UnsafeRawBufferPointer(start: base + PcapngEnhancedPacket.dataOffset, count: Int(captured)))
            packetIndex += 1
        default:  // .simplePacket
            guard length >= PcapngSimplePacket.minimumLength else {
                throw error(.blockTooShort(type: type.rawValue, length: UInt32(length)))
            }
            guard let interface = interfaces.first else { throw error(.unknownInterface(id: 0, described: 0)) }
            let original = order.u32(base, 8)
            var captured = min(Int(original), length - PcapngSimplePacket.minimumLength)
            if interface.snapLength > 0 { captured = min(captured, Int(interface.snapLength)) }
            guard captured <= Self.maximumPacketLength else {
                throw error(.packetTooLong(captured: UInt32(captured), limit: Self.maximumPacketLength))
            }
            packet = CapturePacket(
                index: packetIndex, offset: blockOffset, dataOffset: blockOffset + PcapngSimplePacket.dataOffset,
                interfaceID: 0, linkType: interface.linkType, unixMicroseconds: 0, originalLength: Int(original),
                data: UnsafeRawBufferPointer(start: base + PcapngSimplePacket.dataOffset, count: captured))
            packetIndex += 1
        }
        consume(&input, length)
        return .progressed
    }

    /// A block total length that is well formed and, for blocks parsed whole, within the limit.
    @inline(__always)
    private func checkedLength(_ length: UInt32, parsed: Bool) throws(CaptureFileError) -> Int {
        guard length >= 12, length & 3 == 0 else { throw error(.invalidBlockLength(length)) }
        if parsed, length > Self.maximumBlockLength {
            throw error(.blockTooLong(length: length, limit: Self.maximumBlockLength))
        }
        return Int(length)
    }

    @inline(__always)
    private func checkTrailer(_ base: UnsafeRawPointer, length: Int, order: PcapngByteOrder) throws(CaptureFileError) {
        let trailing = order.u32(base, length - 4)
        guard trailing == UInt32(length) else {
            throw error(.blockLengthMismatch(leading: UInt32(length), trailing: trailing), at: offset)
        }
    }

    @inline(__always)
    private mutating func consume(_ input: inout ByteCursor, _ length: Int) {
        input.advance(length)
        offset += length
        blockIndex += 1
    }

    private mutating func continueSkip(_ input: inout ByteCursor) throws(CaptureFileError) -> Step {
        guard var pending = skip else { return .progressed }
        let body = min(pending.remaining, input.remaining)
        input.advance(body)
        offset += body
        pending.remaining -= body
        skip = pending
        guard pending.remaining == 0, input.remaining >= 4 else { return .needMore }
        let trailing = order.u32(input.bytes.baseAddress! + input.position, 0)
        guard trailing == pending.length else {
            throw CaptureFileError(.pcapng, .blockLengthMismatch(leading: pending.length, trailing: trailing),
                                   blockIndex: blockIndex, offset: pending.blockOffset)
        }
        skip = nil
        input.advance(4)
        offset += 4
        blockIndex += 1
        return .progressed
    }

    /// Called at end of input with the bytes ``nextPacket(_:)`` could not use: throws the
    /// truncation (or not-pcapng) error they amount to, if any.
    public func finish(unconsumed input: ByteCursor) throws(CaptureFileError) {
        if let skip {
            throw CaptureFileError(.pcapng, .truncated(expected: Int(skip.length), available: offset - skip.blockOffset + input.remaining),
                                   blockIndex: blockIndex, offset: skip.blockOffset)
        }
        let available = input.remaining
        if sections == 0 {
            // Say "not pcapng" as soon as the bytes present disagree with a section header.
            if available >= 4, input.load(littleEndian: UInt32.self, at: 0) != PcapngBlockType.sectionHeader.rawValue {
                throw error(.badMagic)
            }
            throw error(.truncatedFileHeader(available: available))
        }
        guard available > 0 else { return }
        var expected = 0
        if available >= 8 {
            let base = input.bytes.baseAddress! + input.position
            var lengthOrder = order
            if base.loadUnaligned(as: UInt32.self) == PcapngBlockType.sectionHeader.rawValue, available >= 12,
               let sectionOrder = PcapngSectionHeader.byteOrder(base) {
                lengthOrder = sectionOrder
            }
            expected = Int(lengthOrder.u32(base, 4))
        }
        throw error(.truncated(expected: expected, available: available))
    }
}

extension ByteCursor {
    /// Moves past `count` bytes the caller has checked are there.
    @inline(__always)
    mutating func advance(_ count: Int) {
        do throws(ParseError) { try skip(count) } catch { preconditionFailure("advance past the checked end") }
    }
}

extension PcapngBlockParser {
    // Concrete, not the protocol's default: a caller in another module that specialises
    // CaptureFileReader<PcapngBlockParser> calls this directly, and a default implementation would be its
    // unspecialised generic body.
    public static func nextTraceRecord(of reader: CaptureFileReader<PcapngBlockParser>) throws(CaptureFileError) -> TraceRecord? {
        try reader.readNextTraceRecord()
    }
}
