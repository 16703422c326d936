#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves attribute text that repeats across millions of records (types, units, source names,
/// device strings) to a value computed once: a lookup compares bytes in place and allocates
/// nothing on a hit. Bounded: past ``capacity`` distinct texts, misses are resolved again every
/// time instead of remembered (an export has tens of sources and types, not thousands).
struct InternTable<Value> {
    /// Every remembered text, back to back; `spans[i]` is the i-th one's (offset, length).
    private var bytes: [UInt8] = []
    private var spans: [(offset: Int, length: Int)] = []
    private var values: [Value] = []
    private var last = -1
    let capacity: Int

    init(capacity: Int = 4096) { self.capacity = capacity }

    /// The value for `text`, resolving and remembering it on a miss.
    mutating func value(for text: UnsafePointer<CChar>, resolve: (String) throws(AppleHealthError) -> Value) throws(AppleHealthError) -> Value {
        let length = strlen(text)
        if let found = index(of: text, length) {
            last = found
            return values[found]
        }
        let value = try resolve(String(cString: text))
        if spans.count < capacity {
            spans.append((bytes.count, length))
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: text, count: length))
            values.append(value)
            last = spans.count - 1
        }
        return value
    }

    private func index(of text: UnsafePointer<CChar>, _ length: Int) -> Int? {
        bytes.withUnsafeBytes { stored -> Int? in
            func matches(_ index: Int) -> Bool {
                let span = spans[index]
                return span.length == length && (length == 0 || memcmp(stored.baseAddress! + span.offset, text, length) == 0)
            }
            if last >= 0, matches(last) { return last }
            for index in spans.indices where matches(index) { return index }
            return nil
        }
    }
}
