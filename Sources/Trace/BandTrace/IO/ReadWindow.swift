import BandKitSystem
/// The unconsumed part of a fixed read buffer, and its refill from a file descriptor: the
/// streaming file reader's (``CaptureFileReader``, whatever its framer).
///
/// Bytes `start..<end` of the buffer are read but not yet consumed. A refill moves them to the
/// front (a record cut by the previous read's end is completed in place, never copied out) and
/// reads as much as fits after them; the caller's framer then resumes on the whole window.
struct ReadWindow {
    var start = 0
    var end = 0
    /// The last read returned 0 bytes: what is in the window is all there is.
    var reachedEnd = false
    /// Bytes read from the file so far.
    var bytesRead = 0

    /// Moves the unconsumed tail to the front and reads after it. Returns the `read(2)` errno
    /// on failure (each reader says where in its own format the failure happened).
    mutating func refill(_ buffer: UnsafeMutableRawBufferPointer, fd: Int32, calls: SystemCalls) -> Int32? {
        if start > 0 {
            let pending = end - start
            if pending > 0 {
                buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: pending)
            }
            start = 0
            end = pending
        }
        switch calls.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...])) {
        case .success(let n):
            end += n
            bytesRead += n
            reachedEnd = n == 0
            return nil
        case .failure(let errno):
            return errno.rawValue
        }
    }
}
