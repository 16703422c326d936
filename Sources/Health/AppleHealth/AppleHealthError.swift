/// Why an Apple Health export could not be read: what is wrong and where (line and column of
/// export.xml, or the zip member and byte offset).
public struct AppleHealthError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Not well-formed XML (expat's verdict).
        case malformedXML
        /// XML a safe reader refuses: entity declarations, external entities.
        case unsafeXML
        /// A well-formed element with a bad value: unknown unit, unparsable date, out-of-range time or value.
        case badRecord
        /// A limit that keeps memory bounded was exceeded (metadata entries, value length).
        case tooLarge
        /// The zip container: no export.xml, a damaged member, unsupported compression.
        case zip
        /// Reading the file failed (an I/O error, not bad data).
        case io
    }

    public var kind: Kind
    /// Where: `line 12, column 5`, or `member apple_health_export/export.xml at byte 4096`.
    public var place: String
    public var message: String

    public init(_ kind: Kind, place: String, _ message: String) {
        self.kind = kind
        self.place = place
        self.message = message
    }

    /// Whether the input is at fault (exit 65) rather than the system (exit 1).
    public var isBadData: Bool { kind != .io }

    public var description: String { place.isEmpty ? message : "\(place): \(message)" }
}
