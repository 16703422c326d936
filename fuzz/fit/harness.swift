// libFuzzer harness for the FIT decoder (FitFile: header, definitions, data messages, compressed
// timestamps, developer fields, CRCs) and its activity and monitoring reading.
//
// Properties checked on every input, as it is and with its file CRC recomputed (so mutations reach
// the record decoder rather than stopping at the CRC):
//  1. decoding never traps, whatever the bytes;
//  2. an error's byte offset lies inside the input (the end counts, for truncation);
//  3. messages come in file order, each record header inside the input;
//  4. an activity read re-encodes (FitActivity.encoded) to a file that decodes again, to the same
//     number of laps, sessions and points; a re-read of that is stable.
import BandWire
import FitFile

func check(_ bytes: UnsafeRawBufferPointer) {
    var lastOffset = -1
    do {
        try FitDecoder.decode(bytes) { message throws(ParseError) in
            precondition(message.offset > lastOffset && message.offset < bytes.count, "message at \(message.offset) out of order or outside")
            lastOffset = message.offset
        }
    } catch {
        precondition(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside \(bytes.count) bytes")
    }
    let content: FitContent
    do { content = try FitContent(parsing: bytes) } catch {
        precondition(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside \(bytes.count) bytes")
        return
    }
    guard case .activity(let activity) = content else { return }
    let encoded = activity.encoded()
    let again: FitContent
    do { again = try FitContent(parsing: encoded) } catch { preconditionFailure("re-encoded activity refused: \(error)") }
    guard case .activity(let read) = again else { preconditionFailure("re-encoded activity is not an activity") }
    precondition(read.laps.count == activity.laps.count && read.sessions.count == activity.sessions.count
                 && read.points.count == activity.points.count, "re-encoded activity lost messages")
    let second: FitContent
    do { second = try FitContent(parsing: read.encoded()) } catch { preconditionFailure("second round trip refused: \(error)") }
    precondition(second == again, "a second round trip changed the activity")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFit(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    check(input)
    guard size >= 16 else { return 0 }
    var sealed = [UInt8](input)
    let crc = FitCRC.checksum(sealed.dropLast(2))
    sealed[size - 2] = UInt8(crc & 0xFF)
    sealed[size - 1] = UInt8(crc >> 8)
    sealed.withUnsafeBytes { check($0) }
    return 0
}
