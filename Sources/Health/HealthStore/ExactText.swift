#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HealthModel

/// A cache key that compares text byte for byte.
///
/// Swift's `String` hashes and compares by canonical equivalence ("é" precomposed equals
/// "e" + U+0301), but the store keeps names byte for byte — SQLite's BINARY collation and
/// PostgreSQL's deterministic collations give two rows for two spellings. A `String`-keyed
/// cache in front of those rows would hand the second spelling the first one's row, so the
/// store's in-memory caches of app and device rows key by this instead.
struct ExactText: Hashable {
    private var bytes: [UInt8] = []

    init(_ text: String) {
        append(text)
    }

    /// Every field of the device, each length-prefixed (a field may hold any byte, NUL
    /// included) and absent fields marked apart from empty ones.
    init(_ device: DeviceInfo) {
        for field in [device.name, device.manufacturer, device.model, device.hardwareIdentifier, device.firmwareVersion] {
            if let field { bytes.append(1); append(field) } else { bytes.append(0) }
        }
    }

    private mutating func append(_ text: String) {
        let count = UInt32(truncatingIfNeeded: text.utf8.count)
        withUnsafeBytes(of: count.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: text.utf8)
    }
}

extension ExactText {
    /// Whether two texts have the same bytes, without building keys.
    static func same(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var (a, b) = (a, b)  // withUTF8 is mutating; native strings are not copied
        return a.withUTF8 { x in
            b.withUTF8 { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
    }

    static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): same(a, b)
        default: false
        }
    }

    /// Whether two devices have the same fields byte for byte (as their keys compare).
    static func same(_ a: DeviceInfo, _ b: DeviceInfo) -> Bool {
        same(a.name, b.name) && same(a.manufacturer, b.manufacturer) && same(a.model, b.model)
            && same(a.hardwareIdentifier, b.hardwareIdentifier) && same(a.firmwareVersion, b.firmwareVersion)
    }
}
