import BandKitSystem
internal import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams one member of a zip out in pieces: stored or DEFLATE (through zlib's raw inflate),
/// with fixed buffers whatever the member's size. Sizes are checked against the central
/// directory as the bytes flow (more output than it promises stops at once) and the CRC-32 at
/// the end, so a damaged member is an error naming it, never silently short or long data.
///
/// Local file header (APPNOTE.TXT §4.3.7): signature 0x04034b50, name length at 26, extra
/// length at 28, the data after the 30 + name + extra bytes. Sizes and CRC come from the
/// central directory (a data descriptor, flag bit 3, leaves the local ones zero).
public struct ZipMemberReader {
    public let member: ZipDirectory.Member
    let descriptor: Int32
    let archiveName: String
    let dataOffset: UInt64

    static let inputChunk = 256 * 1024
    static let outputChunk = 1 << 20

    public init(descriptor: Int32, directory: ZipDirectory, member: ZipDirectory.Member, archiveName: String) throws(AppleHealthError) {
        self.member = member
        self.descriptor = descriptor
        self.archiveName = archiveName
        let place = "\(archiveName): member \(member.name)"
        func damaged(_ message: String) -> AppleHealthError { AppleHealthError(.zip, place: place, message) }
        guard member.flags & 1 == 0 else { throw damaged("is encrypted") }
        guard member.method == 0 || member.method == 8 else {
            throw damaged("uses compression method \(member.method); only stored (0) and DEFLATE (8) are read")
        }
        guard member.localHeaderOffset + 30 <= directory.fileSize else {
            throw damaged("local header at byte \(member.localHeaderOffset) is past the end of the file")
        }
        let header = try ZipDirectory.read(descriptor, at: member.localHeaderOffset, count: 30, name: place)
        guard header.u32(0) == 0x0403_4B50 else { throw damaged("no local header at byte \(member.localHeaderOffset)") }
        dataOffset = member.localHeaderOffset + 30 + UInt64(header.u16(26)) + UInt64(header.u16(28))
        guard dataOffset + member.compressedSize <= directory.fileSize else {
            throw damaged("its \(member.compressedSize) compressed bytes at byte \(dataOffset) run past the end of the \(directory.fileSize)-byte file (truncated download?)")
        }
        if member.method == 0, member.compressedSize != member.uncompressedSize {
            throw damaged("stored with \(member.compressedSize) bytes but \(member.uncompressedSize) uncompressed")
        }
    }

    private var place: String { "\(archiveName): member \(member.name)" }

    /// Calls `body` with each piece of the member's content, then `progress` with the compressed
    /// bytes consumed so far. Throws ``AppleHealthError`` (kind `.zip`) for damaged data; errors
    /// from `body` pass through.
    public func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Void,
                             progress: (UInt64) -> Void = { _ in }) throws {
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.inputChunk, alignment: 16)
        defer { input.deallocate() }
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.outputChunk, alignment: 16)
        defer { output.deallocate() }
        var stream = z_stream()
        if member.method == 8 {
            guard bandkit_inflate_init_raw(&stream) == Z_OK else { throw AppleHealthError(.io, place: place, "zlib could not start") }
        }
        defer { if member.method == 8 { inflateEnd(&stream) } }
        var consumed: UInt64 = 0
        var produced: UInt64 = 0
        var crc = crc32(0, nil, 0)
        var finished = false
        func damaged(_ message: String) -> AppleHealthError {
            AppleHealthError(.zip, place: place, "damaged at compressed byte \(consumed): \(message)")
        }
        func deliver(_ count: Int) throws {
            guard count > 0 else { return }
            produced += UInt64(count)
            if produced > member.uncompressedSize {
                throw damaged("inflates to more than the \(member.uncompressedSize) bytes the central directory gives")
            }
            crc = crc32(crc, output.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(count))
            try body(UnsafeRawBufferPointer(rebasing: output[0..<count]))
        }
        while consumed < member.compressedSize {
            let want = Int(min(UInt64(Self.inputChunk), member.compressedSize - consumed))
            var got = 0
            while got < want {
                let read = valueOrErrno { pread(descriptor, input.baseAddress! + got, want - got, off_t(dataOffset + consumed) + off_t(got)) }
                guard case .success(let result) = read else { throw ZipDirectory.ioError(place, "cannot read at byte \(dataOffset + consumed)") }
                if result == 0 { throw damaged("the file ends early") }
                got += result
            }
            if member.method == 0 {
                output.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[0..<got]))
                consumed += UInt64(got)
                try deliver(got)
            } else {
                stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(got)
                repeat {
                    stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(Self.outputChunk)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    switch status {
                    case Z_OK, Z_STREAM_END, Z_BUF_ERROR: break
                    default:
                        let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                        consumed += UInt64(got) - UInt64(stream.avail_in)
                        throw damaged(message)
                    }
                    try deliver(Self.outputChunk - Int(stream.avail_out))
                    if status == Z_STREAM_END { finished = true; break }
                    if status == Z_BUF_ERROR, stream.avail_in == 0 { break }
                } while stream.avail_in > 0 || stream.avail_out == 0
                consumed += UInt64(got) - UInt64(stream.avail_in)
                if finished { break }
            }
            progress(consumed)
        }
        if member.method == 8, !finished { throw damaged("the DEFLATE stream ends before its end marker") }
        guard produced == member.uncompressedSize else {
            throw damaged("inflates to \(produced) bytes where the central directory gives \(member.uncompressedSize)")
        }
        guard UInt32(crc) == member.crc32 else {
            throw AppleHealthError(.zip, place: place, "damaged: CRC-32 \(hex(UInt32(crc))) where the central directory gives \(hex(member.crc32))")
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
