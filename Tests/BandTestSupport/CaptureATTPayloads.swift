import BandWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shared real captures (`../shared/captures/` beside the checkout), for tests.
public enum SharedCaptures {
    /// `shared/captures/NAME` beside the repository (CI: `../shared`), or beside the directory
    /// holding it (a worktree under `wt/`); the first of the two when neither exists.
    public static func path(_ name: String) -> String {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Tests/BandTestSupport/<file>
        let root = components.joined(separator: "/")
        let candidates = [root + "/../shared/captures/" + name, root + "/../../shared/captures/" + name]
        return candidates.first { access($0, R_OK) == 0 } ?? candidates[0]
    }

    /// The path when the capture is there; nil when it is absent (tests then skip, saying so).
    public static func existingPath(_ name: String) -> String? {
        let candidate = path(name)
        return access(candidate, R_OK) == 0 ? candidate : nil
    }

    /// The file's bytes, or nil when it is absent (tests then skip, saying so).
    public static func load(_ name: String) -> [UInt8]? {
        guard let file = fopen(path(name), "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    /// Every ATT PDU (L2CAP channel 0x0004) of a btsnoop H4 (datalink 1002) capture whose
    /// L2CAP frame fits in one ACL packet, in capture order.
    ///
    /// A deliberately small walker for tests of the ATT and GATT decoders only (no
    /// reassembly: the shared captures never fragment ATT); BandTrace owns the real one.
    /// Layout: ble-formats.md §3–4.
    public static func singleFragmentATTPDUs(in capture: [UInt8]) throws(ParseError) -> [[UInt8]] {
        var pdus: [[UInt8]] = []
        let result: Result<Void, ParseError> = capture.withUnsafeBytes { raw in
            do throws(ParseError) {
                var file = ByteCursor(raw)
                try file.skip(16, "btsnoop header")
                while !file.isAtEnd {
                    _ = try file.readUInt32BE("original length")
                    let included = Int(try file.readUInt32BE("included length"))
                    try file.skip(16, "flags, drops, timestamp")
                    var record = try file.readCursor(included, "packet data")
                    guard try record.readUInt8("H4 type") == 0x02 else { continue }
                    let handleAndFlags = try record.readUInt16LE("ACL handle")
                    let aclLength = Int(try record.readUInt16LE("ACL length"))
                    let packetBoundary = handleAndFlags >> 12 & 0x3
                    guard packetBoundary != 0b01, aclLength >= 4 else { continue }
                    let l2capLength = Int(try record.readUInt16LE("L2CAP length"))
                    let channel = try record.readUInt16LE("L2CAP CID")
                    guard channel == 0x0004, l2capLength == aclLength - 4, l2capLength <= record.remaining else { continue }
                    pdus.append(Array(try record.readBytes(l2capLength, "ATT PDU")))
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        return pdus
    }
}
