/// btsnoop timestamps: signed 64-bit microseconds since 0000-01-01 00:00:00 (proleptic
/// Gregorian, as the snoop format inherited it).
///
/// Wireshark `wiretap/btsnoop.c` subtracts `KUnixTimeBase = 0x00dcddb30f2f8000` to get Unix
/// time; Android `snoop_logger.cc` adds `BTSNOOP_EPOCH_DELTA` (the same constant); BlueZ
/// `btsnoop_write` adds `0x00E03AB44A676000` to microseconds since 2000-01-01, which is the
/// same epoch: 0x00E03AB44A676000 − 946684800·10⁶ = 0x00DCDDB30F2F8000.
public enum BtsnoopTimestamp {
    /// Microseconds from 0000-01-01 to 1970-01-01.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    @inlinable
    public static func unixMicroseconds(_ btsnoop: Int64) -> Int64 {
        btsnoop &- unixEpochOffset
    }

    @inlinable
    public static func btsnoop(unixMicroseconds: Int64) -> Int64 {
        unixMicroseconds &+ unixEpochOffset
    }
}
