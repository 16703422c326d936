import BandWire

/// InfiniTime's Motion service (PineTime watch firmware, `src/components/ble/MotionService.cpp`):
/// the watch's step count and raw accelerometer. Not a SIG service; the UUIDs follow InfiniTime's
/// custom scheme `SSSSCCCC-78fc-48fe-8e23-433b3a1942d0` (service SSSS, characteristic CCCC).
///
/// | UUID | characteristic | properties | value |
/// |---|---|---|---|
/// | `00030000-…` | (primary service) | | |
/// | `00030001-…` | Step count | read, notify | u32 LE: steps today on the watch's local clock; restarts at 0 at local midnight and on a reboot |
/// | `00030002-…` | Raw motion | read, notify | 3 × i16 LE (x, y, z) |
public enum InfiniTimeMotionService {
    /// `SSSSCCCC-78fc-48fe-8e23-433b3a1942d0`.
    public static func uuid(service: UInt16, characteristic: UInt16) -> BluetoothUUID {
        BluetoothUUID(high: UInt64(service) << 48 | UInt64(characteristic) << 32 | 0x78FC_48FE, low: 0x8E23_433B_3A19_42D0)
    }

    public static let service = uuid(service: 0x0003, characteristic: 0x0000)
    public static let stepCount = uuid(service: 0x0003, characteristic: 0x0001)
    public static let rawMotion = uuid(service: 0x0003, characteristic: 0x0002)
}
