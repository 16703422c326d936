/// Why a decoder refused its input, and where.
///
/// Every decoder in BandKit reports failures with this one type so a user can be
/// told *what* was wrong and *at which byte*. `offset` is absolute within the
/// buffer the outermost cursor was made for (plus that cursor's `baseOffset`),
/// so an error deep inside a nested structure still points at the right byte of
/// the PDU or file.
public struct ParseError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong. Closed on purpose: these are BandKit's words, not wire values.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The input ended before the field did.
        case truncated
        /// The field is present but holds a value the specification forbids.
        case invalidValue = "invalid_value"
        /// The field is well formed but names something BandKit does not implement.
        case unsupported
        /// The structure ended but bytes remain where the specification allows none.
        case trailingBytes = "trailing_bytes"
    }

    public var kind: Kind
    /// Byte offset of the offending field.
    public var offset: Int
    /// The field being read, e.g. `"heart rate value"`. Static so that making an error allocates nothing.
    public var field: StaticString

    public init(_ kind: Kind, at offset: Int, field: StaticString = "") {
        self.kind = kind
        self.offset = offset
        self.field = field
    }

    public var description: String {
        let what = field.utf8CodeUnitCount == 0 ? "" : " in \(field)"
        return "\(kind.rawValue)\(what) at byte offset \(offset)"
    }

    public static func == (lhs: ParseError, rhs: ParseError) -> Bool {
        lhs.kind == rhs.kind && lhs.offset == rhs.offset
            && lhs.field.description == rhs.field.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(offset)
    }
}
