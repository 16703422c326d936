import BandTestSupport
@testable import BandTrace

/// Hand-assembled pcapng and pcap bytes in either byte order, so tests state every byte
/// they feed the readers (draft-ietf-opsawg-pcapng §4, draft-ietf-opsawg-pcap §4–5).
struct PcapngFixtures {
    var bigEndian = false

    func u16(_ v: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }

    func u32(_ v: UInt32) -> [UInt8] {
        let le = (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) }
        return bigEndian ? le.reversed() : le
    }

    func u64(_ v: UInt64) -> [UInt8] {
        let le = (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
        return bigEndian ? le.reversed() : le
    }

    static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
    }

    /// Any block: type, total length, body (padded), total length again.
    func block(_ type: UInt32, _ body: [UInt8], trailingLength: UInt32? = nil, length: UInt32? = nil) -> [UInt8] {
        let body = Self.padded(body)
        let total = UInt32(12 + body.count)
        return u32(type) + u32(length ?? total) + body + u32(trailingLength ?? length ?? total)
    }

    func sectionHeader(major: UInt16 = 1, minor: UInt16 = 0, options: [UInt8] = []) -> [UInt8] {
        block(0x0A0D_0D0A, u32(0x1A2B_3C4D) + u16(major) + u16(minor) + u64(UInt64.max) + options)
    }

    func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        u16(code) + u16(UInt16(value.count)) + Self.padded(value)
    }

    func interface(linkType: UInt16, snapLength: UInt32 = 0, tsresol: UInt8? = nil, tsoffset: Int64? = nil,
                   extraOptions: [UInt8] = []) -> [UInt8] {
        var options = extraOptions
        if let tsresol { options += option(9, [tsresol]) }
        if let tsoffset { options += option(14, u64(UInt64(bitPattern: tsoffset))) }
        if !options.isEmpty { options += u16(0) + u16(0) }
        return block(1, u16(linkType) + u16(0) + u32(snapLength) + options)
    }

    func enhancedPacket(interface: UInt32 = 0, timestamp: UInt64, _ data: [UInt8], original: UInt32? = nil,
                        captured: UInt32? = nil, options: [UInt8] = [], trailingLength: UInt32? = nil) -> [UInt8] {
        block(6, u32(interface) + u32(UInt32(timestamp >> 32)) + u32(UInt32(truncatingIfNeeded: timestamp))
              + u32(captured ?? UInt32(data.count)) + u32(original ?? UInt32(data.count)) + Self.padded(data) + options,
              trailingLength: trailingLength)
    }

    func obsoletePacket(interface: UInt16 = 0, timestamp: UInt64, _ data: [UInt8]) -> [UInt8] {
        block(2, u16(interface) + u16(0) + u32(UInt32(timestamp >> 32)) + u32(UInt32(truncatingIfNeeded: timestamp))
              + u32(UInt32(data.count)) + u32(UInt32(data.count)) + Self.padded(data))
    }

    func simplePacket(_ data: [UInt8], original: UInt32? = nil) -> [UInt8] {
        block(3, u32(original ?? UInt32(data.count)) + data)
    }

    /// Link type 201's pseudo-header (always big-endian) and the H4 byte in front of `payload`.
    static func h4WithPseudoHeader(received: Bool, type: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0, 0, 0, received ? 1 : 0, type] + payload
    }

    /// Link type 254's pseudo-header (big-endian adapter index and opcode) in front of `payload`.
    static func monitor(adapter: UInt16, opcode: UInt16, _ payload: [UInt8]) -> [UInt8] {
        [UInt8(adapter >> 8), UInt8(adapter & 0xFF), UInt8(opcode >> 8), UInt8(opcode & 0xFF)] + payload
    }

    // MARK: classic pcap

    func pcapHeader(nanoseconds: Bool = false, major: UInt16 = 2, linkType: UInt32 = 201, snapLength: UInt32 = 65_535) -> [UInt8] {
        u32(nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4) + u16(major) + u16(4) + u32(0) + u32(0) + u32(snapLength) + u32(linkType)
    }

    func pcapRecord(seconds: UInt32, fraction: UInt32, _ data: [UInt8], captured: UInt32? = nil) -> [UInt8] {
        u32(seconds) + u32(fraction) + u32(captured ?? UInt32(data.count)) + u32(UInt32(data.count)) + data
    }

    // MARK: conversion

    /// The btsnoop file `btsnoop` (datalink 1002 or 2001) as pcapng, the way `editcap -F pcapng`
    /// writes it (link type 201 or 254, µs timestamps), with `extraBlocks` (e.g. a Name
    /// Resolution or custom block) after every `every` packets to prove they are skipped.
    func pcapng(fromBtsnoop btsnoop: [UInt8], extraBlock: [UInt8]? = nil, every: Int = 7) -> [UInt8] {
        var output: [UInt8] = []
        btsnoop.withUnsafeBytes { raw in
            var reader = try! BtsnoopMemoryReader(bytes: raw)
            let monitor = reader.datalink == .linuxMonitor
            output = sectionHeader() + interface(linkType: monitor ? 254 : 201)
            var count = 0
            while let record = try! reader.next() {
                let data: [UInt8]
                if monitor {
                    data = Self.monitor(adapter: UInt16(record.flags >> 16), opcode: UInt16(record.flags & 0xFFFF), Array(record.data))
                } else {
                    data = [0, 0, 0, UInt8(record.flags & 1)] + Array(record.data)
                }
                output += enhancedPacket(timestamp: UInt64(bitPattern: record.unixMicroseconds), data,
                                         original: record.header.originalLength + (monitor ? 4 : 4))
                count += 1
                if let extraBlock, count % every == 0 { output += extraBlock }
            }
        }
        return output
    }
}

/// Every packet of a pcapng or pcap file in memory (copies) and the error that ended reading.
func readPackets<Framer: CaptureContainerFramer>(_ file: [UInt8], as framer: Framer.Type)
    -> (packets: [(index: Int, offset: Int, interface: Int, linkType: UInt32, micros: Int64, data: [UInt8])], error: CaptureFileError?) {
    file.withUnsafeBytes { raw in
        var out: [(index: Int, offset: Int, interface: Int, linkType: UInt32, micros: Int64, data: [UInt8])] = []
        do throws(CaptureFileError) {
            var reader = try CaptureMemoryReader<Framer>(bytes: raw)
            while let packet = try reader.nextPacket() {
                out.append((packet.index, packet.offset, packet.interfaceID, packet.linkType.rawValue, packet.unixMicroseconds, Array(packet.data)))
            }
            return (out, nil)
        } catch {
            return (out, error)
        }
    }
}
