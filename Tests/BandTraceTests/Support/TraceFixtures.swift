import BandTestSupport
import BandWire
import Foundation
@testable import BandTrace

/// Hand-assembled btsnoop bytes, so tests state every byte they feed the reader.
enum TraceFixtures {
    static func fileHeader(datalink: UInt32 = 1002, version: UInt32 = 1) -> [UInt8] {
        Array("btsnoop".utf8) + [0] + be32(version) + be32(datalink)
    }

    static func record(_ data: [UInt8], flags: UInt32, unixMicroseconds: Int64 = 1_539_547_264_401_785,
                       original: UInt32? = nil, included: UInt32? = nil, drops: UInt32 = 0) -> [UInt8] {
        let ts = UInt64(bitPattern: BtsnoopTimestamp.btsnoop(unixMicroseconds: unixMicroseconds))
        return be32(original ?? UInt32(data.count)) + be32(included ?? UInt32(data.count)) + be32(flags) + be32(drops)
            + (0..<8).map { UInt8(truncatingIfNeeded: ts >> (8 * UInt64(7 - $0))) } + data
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    /// An ACL packet (no H4 byte): header + data.
    static func acl(handle: UInt16, pb: UInt8, _ data: [UInt8]) -> [UInt8] {
        let word = handle | UInt16(pb) << 12
        return [UInt8(word & 0xFF), UInt8(word >> 8), UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data
    }

    /// A whole L2CAP B-frame on `cid`.
    static func l2cap(cid: UInt16 = 4, _ payload: [UInt8]) -> [UInt8] {
        [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload
    }

    /// LE Connection Complete event (no H4 byte) for `handle` with peer C8:0F:10:12:34:56 (public).
    static func leConnectionComplete(handle: UInt16) -> [UInt8] {
        [0x3E, 0x13, 0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x00, 0x00,
         0x56, 0x34, 0x12, 0x10, 0x0F, 0xC8, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00]
    }

    static func disconnectionComplete(handle: UInt16) -> [UInt8] {
        [0x05, 0x04, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x13]
    }

    /// A real capture from `shared/captures` beside the repository; nil if absent (tests then say they skip).
    static func capture(_ name: String) -> String? { SharedCaptures.existingPath(name) }

    static func temporaryPath(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bandtrace-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("\(UUID().uuidString)-\(name)").path
    }

    static func write(_ bytes: [UInt8], to path: String) {
        precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
    }
}

/// Reads every record from memory, returning copies and the error that ended reading (if any).
func readAll(_ file: [UInt8]) -> (records: [(header: BtsnoopRecordHeader, data: [UInt8], index: Int, offset: Int)], error: BtsnoopError?) {
    file.withUnsafeBytes { raw in
        var out: [(header: BtsnoopRecordHeader, data: [UInt8], index: Int, offset: Int)] = []
        do throws(BtsnoopError) {
            var reader = try BtsnoopMemoryReader(bytes: raw)
            while let record = try reader.next() {
                out.append((record.header, Array(record.data), record.index, record.offset))
            }
            return (out, nil)
        } catch {
            return (out, error)
        }
    }
}
