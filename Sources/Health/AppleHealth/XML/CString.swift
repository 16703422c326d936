#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Helpers for the NUL-terminated strings expat hands out (valid during one callback only).
enum CString {
    /// Whether `text` equals the literal `name`.
    @inline(__always)
    static func equals(_ text: UnsafePointer<CChar>, _ name: StaticString) -> Bool {
        strcmp(text, UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
    }

    /// A finite decimal number filling the whole text, or nil.
    static func number(_ text: UnsafePointer<CChar>) -> Double? {
        guard text[0] != 0 else { return nil }
        var end: UnsafeMutablePointer<CChar>?
        let value = strtod(text, &end)
        guard let end, end.pointee == 0, value.isFinite else { return nil }
        return value
    }

    /// The `name="value"` pairs of an element, as expat lays them out (name, value, …, NULL).
    struct Attributes: Sequence {
        let base: UnsafeMutablePointer<UnsafePointer<CChar>?>?

        struct Iterator: IteratorProtocol {
            var cursor: UnsafeMutablePointer<UnsafePointer<CChar>?>?
            mutating func next() -> (name: UnsafePointer<CChar>, value: UnsafePointer<CChar>)? {
                guard let current = cursor, let name = current[0], let value = current[1] else { return nil }
                cursor = current + 2
                return (name, value)
            }
        }

        func makeIterator() -> Iterator { Iterator(cursor: base) }

        /// The value of attribute `name`, or nil.
        func value(_ name: StaticString) -> UnsafePointer<CChar>? {
            for (key, value) in self where CString.equals(key, name) { return value }
            return nil
        }
    }
}
