import BandATT
import BandWire

/// The band's own activity service: UUIDs and the application error it defines.
///
/// All UUIDs share the made-up vendor base `b5c0xxxx-4e2f-4b1a-9a6c-2d1f0e8b7a36`; on the ATT
/// wire they travel as 16 little-endian bytes (Core 5.4 Vol 3 Part F §3.2.1). See
/// docs/protocol.md, "Band activity service", for every layout and the reasons behind it.
///
/// | UUID | characteristic | properties | needs authentication |
/// |---|---|---|---|
/// | `b5c00001-…` | (primary service) | | |
/// | `b5c00002-…` | Live Activity (``LiveActivity``) | read, notify | yes |
/// | `b5c00003-…` | History Control Point (``HistoryRequest`` / ``HistoryResponse``) | write, indicate | yes |
/// | `b5c00004-…` | History Data (``HistoryDataPacket``) | notify | yes |
/// | `b5c00005-…` | Auth Control Point (``AuthRequest`` / ``AuthResponse``) | write, indicate | no |
public enum BandActivityService {
    /// `b5c0xxxx-4e2f-4b1a-9a6c-2d1f0e8b7a36` with `xxxx` = `short`.
    public static func uuid(_ short: UInt16) -> BluetoothUUID {
        BluetoothUUID(high: 0xB5C0_0000_4E2F_4B1A | UInt64(short) << 32, low: 0x9A6C_2D1F_0E8B_7A36)
    }

    public static let service = uuid(0x0001)
    public static let liveActivity = uuid(0x0002)
    public static let historyControlPoint = uuid(0x0003)
    public static let historyData = uuid(0x0004)
    public static let authControlPoint = uuid(0x0005)

    /// ATT application error (Core 5.4 Vol 3 Part F §3.4.1.1, range 0x80–0x9F) returned for any
    /// read, write or CCCD write on the Live Activity, History Control Point or History Data
    /// characteristics before the connection has authenticated.
    ///
    /// An application error rather than 0x05 Insufficient Authentication on purpose: 0x05 tells a
    /// stack that *link* security is too low, and BlueZ reacts by raising the link's security
    /// level (SMP pairing) and retrying — which cannot help, since this is application-level
    /// authentication.
    public static let notAuthenticatedError: UInt8 = 0x80

    /// ``notAuthenticatedError`` as the ATT error code a reader sees in an Error Response.
    public static let notAuthenticated = ATTErrorCode(rawValue: notAuthenticatedError)
}
