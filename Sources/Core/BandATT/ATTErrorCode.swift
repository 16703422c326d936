import BandWire

/// The error code of an ATT Error Response.
///
/// Core 5.4 Vol 3 Part F §3.4.1.1 (Table 3.4) for 0x01–0x13 and the application range
/// 0x80–0x9F; Core Specification Supplement (CSS) v11 Part B §1.2 for the common profile and
/// service error codes 0xE0–0xFF. Open: a peer may send codes a later Core defines.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidHandle = ATTErrorCode(rawValue: 0x01)
    public static let readNotPermitted = ATTErrorCode(rawValue: 0x02)
    public static let writeNotPermitted = ATTErrorCode(rawValue: 0x03)
    public static let invalidPDU = ATTErrorCode(rawValue: 0x04)
    public static let insufficientAuthentication = ATTErrorCode(rawValue: 0x05)
    public static let requestNotSupported = ATTErrorCode(rawValue: 0x06)
    public static let invalidOffset = ATTErrorCode(rawValue: 0x07)
    public static let insufficientAuthorization = ATTErrorCode(rawValue: 0x08)
    public static let prepareQueueFull = ATTErrorCode(rawValue: 0x09)
    /// Ends every discovery loop: the range holds nothing more of the asked-for type.
    public static let attributeNotFound = ATTErrorCode(rawValue: 0x0A)
    public static let attributeNotLong = ATTErrorCode(rawValue: 0x0B)
    public static let encryptionKeySizeTooShort = ATTErrorCode(rawValue: 0x0C)
    public static let invalidAttributeValueLength = ATTErrorCode(rawValue: 0x0D)
    public static let unlikelyError = ATTErrorCode(rawValue: 0x0E)
    public static let insufficientEncryption = ATTErrorCode(rawValue: 0x0F)
    public static let unsupportedGroupType = ATTErrorCode(rawValue: 0x10)
    public static let insufficientResources = ATTErrorCode(rawValue: 0x11)
    public static let databaseOutOfSync = ATTErrorCode(rawValue: 0x12)
    public static let valueNotAllowed = ATTErrorCode(rawValue: 0x13)

    /// CSS Part B §1.2: 0xFC Write Request Rejected.
    public static let writeRequestRejected = ATTErrorCode(rawValue: 0xFC)
    /// CSS Part B §1.2: 0xFD Client Characteristic Configuration Descriptor Improperly Configured.
    public static let cccdImproperlyConfigured = ATTErrorCode(rawValue: 0xFD)
    /// CSS Part B §1.2: 0xFE Procedure Already in Progress.
    public static let procedureAlreadyInProgress = ATTErrorCode(rawValue: 0xFE)
    /// CSS Part B §1.2: 0xFF Out of Range.
    public static let outOfRange = ATTErrorCode(rawValue: 0xFF)

    /// The range a higher-layer specification assigns its own meanings (Table 3.4).
    public static let applicationRange: ClosedRange<UInt8> = 0x80...0x9F

    /// An application error, `index` 0…31 within 0x80–0x9F (e.g. Heart Rate's 0x80 "Control Point Not Supported").
    public static func application(_ index: UInt8) -> ATTErrorCode {
        precondition(index <= 0x1F, "application error codes are 0x80–0x9F")
        return ATTErrorCode(rawValue: 0x80 + index)
    }

    public var isApplicationError: Bool { Self.applicationRange.contains(rawValue) }
    /// 0xE0–0xFF, defined once for every profile by the Core Specification Supplement.
    public var isCommonProfileError: Bool { rawValue >= 0xE0 }

    /// Human wording, after Table 3.4 and CSS Part B §1.2.
    public var name: String {
        switch rawValue {
        case 0x01: "Invalid Handle"
        case 0x02: "Read Not Permitted"
        case 0x03: "Write Not Permitted"
        case 0x04: "Invalid PDU"
        case 0x05: "Insufficient Authentication"
        case 0x06: "Request Not Supported"
        case 0x07: "Invalid Offset"
        case 0x08: "Insufficient Authorization"
        case 0x09: "Prepare Queue Full"
        case 0x0A: "Attribute Not Found"
        case 0x0B: "Attribute Not Long"
        case 0x0C: "Encryption Key Size Too Short"
        case 0x0D: "Invalid Attribute Value Length"
        case 0x0E: "Unlikely Error"
        case 0x0F: "Insufficient Encryption"
        case 0x10: "Unsupported Group Type"
        case 0x11: "Insufficient Resources"
        case 0x12: "Database Out Of Sync"
        case 0x13: "Value Not Allowed"
        case 0x80...0x9F: "Application Error"
        case 0xFC: "Write Request Rejected"
        case 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured"
        case 0xFE: "Procedure Already in Progress"
        case 0xFF: "Out of Range"
        case 0xE0...0xFB: "Common Profile Error"
        default: "Reserved"
        }
    }

    public var description: String { "\(name) (0x\(Hex.encode([rawValue])))" }
}

/// Thrown (typed) by an attribute source that refuses a read or write: the code goes into the
/// Error Response.
extension ATTErrorCode: Error {}
