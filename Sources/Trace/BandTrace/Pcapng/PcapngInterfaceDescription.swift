/// The Interface Description Block: one per capture interface in a section, numbered from 0
/// in the order they appear; every packet names its interface.
///
/// draft-ietf-opsawg-pcapng §4.2; options §4.2 table 7.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | block type 1 |
/// | 4 | 4 | block total length |
/// | 8 | 2 | link type (``CaptureLinkType``, tcpdump's LINKTYPE list) |
/// | 10 | 2 | reserved |
/// | 12 | 4 | snap length (0 = none) |
/// | 16 | … | options: code u16, length u16, value padded to 4; code 0 ends them |
/// | n − 4 | 4 | block total length |
///
/// Options used: `if_tsresol` (code 9, 1 byte: bit 7 clear → 10^−n s, set → 2^−n s; default
/// 10^−6) and `if_tsoffset` (code 14, i64 seconds added to every timestamp). Others are skipped.
public struct PcapngInterfaceDescription: Hashable, Sendable {
    public static let minimumLength = 20
    static let optionEnd: UInt16 = 0
    static let optionTimestampResolution: UInt16 = 9
    static let optionTimestampOffset: UInt16 = 14

    public var linkType: CaptureLinkType
    public var snapLength: UInt32
    public var timestampResolution: UInt8
    public var timestampOffsetSeconds: Int64
    /// Timestamp units → Unix microseconds, precomputed from the resolution.
    @usableFromInline var scale: PcapngTimestampScale

    public init(linkType: CaptureLinkType, snapLength: UInt32 = 0, timestampResolution: UInt8 = 6,
                timestampOffsetSeconds: Int64 = 0) {
        self.linkType = linkType
        self.snapLength = snapLength
        self.timestampResolution = timestampResolution
        self.timestampOffsetSeconds = timestampOffsetSeconds
        self.scale = PcapngTimestampScale(resolution: timestampResolution) ?? .multiply(1)
    }

    /// An option that cannot be used, at `optionOffset` from the block's start.
    struct OptionError: Error {
        var kind: CaptureFileError.Kind
        var optionOffset: Int
    }

    /// Parses the block at `base` (`length` bytes, checked in memory).
    static func parse(_ base: UnsafeRawPointer, length: Int, order: PcapngByteOrder) throws(OptionError) -> PcapngInterfaceDescription {
        var interface = PcapngInterfaceDescription(linkType: CaptureLinkType(rawValue: UInt32(order.u16(base, 8))),
                                                   snapLength: order.u32(base, 12))
        var position = 16
        let end = length - 4
        while position + 4 <= end {
            let code = order.u16(base, position)
            let optionLength = order.u16(base, position + 2)
            if code == optionEnd { break }
            let padded = (Int(optionLength) + 3) & ~3
            guard position + 4 + padded <= end else {
                throw OptionError(kind: .malformedOption(code: code, length: optionLength), optionOffset: position)
            }
            let value = position + 4
            if code == optionTimestampResolution, optionLength >= 1 {
                let resolution = base.load(fromByteOffset: value, as: UInt8.self)
                guard let scale = PcapngTimestampScale(resolution: resolution) else {
                    throw OptionError(kind: .unsupportedTimestampResolution(resolution), optionOffset: position)
                }
                interface.timestampResolution = resolution
                interface.scale = scale
            } else if code == optionTimestampOffset, optionLength == 8 {
                interface.timestampOffsetSeconds = Int64(bitPattern: order.u64(base, value))
            }
            position = value + padded
        }
        return interface
    }

    /// A timestamp in this interface's units as Unix microseconds (rounded down; wraps rather
    /// than traps on absurd values, which only make an absurd time).
    @inlinable
    public func unixMicroseconds(_ timestamp: UInt64) -> Int64 {
        scale.microseconds(timestamp) &+ timestampOffsetSeconds &* 1_000_000
    }
}

/// How to turn timestamp units into microseconds: decimal resolutions multiply or divide by
/// a power of ten, binary ones multiply by 10⁶ and shift (in 128 bits).
@usableFromInline
enum PcapngTimestampScale: Hashable, Sendable {
    case multiply(UInt64)
    case divide(UInt64)
    case binary(shift: UInt64)

    init?(resolution: UInt8) {
        let exponent = Int(resolution & 0x7F)
        if resolution & 0x80 == 0 {
            // 10^-exponent seconds; 10^(exponent-6) must fit in 64 bits.
            guard exponent <= 25 else { return nil }
            var power: UInt64 = 1
            for _ in 0..<abs(exponent - 6) { power *= 10 }
            self = exponent <= 6 ? .multiply(power) : .divide(power)
        } else {
            guard exponent <= 63 else { return nil }
            self = .binary(shift: UInt64(exponent))
        }
    }

    @inlinable @inline(__always)
    func microseconds(_ units: UInt64) -> Int64 {
        switch self {
        case .multiply(let factor):
            return Int64(truncatingIfNeeded: units &* factor)
        case .divide(let divisor):
            return Int64(truncatingIfNeeded: units / divisor)
        case .binary(let shift):
            let product = units.multipliedFullWidth(by: 1_000_000)
            if shift == 0 { return Int64(truncatingIfNeeded: product.low) }
            return Int64(truncatingIfNeeded: (product.high << (64 - shift)) | (product.low >> shift))
        }
    }
}
