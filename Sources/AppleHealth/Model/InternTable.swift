/// Resolves attribute text that repeats across millions of records (types, units, source names,
/// device strings) to a value computed once: a lookup compares bytes in place and allocates
/// nothing on a hit. Bounded: past ``capacity`` distinct texts, misses are resolved again every
/// time instead of remembered (an export has tens of sources and types, not thousands).
struct InternTable<Value> {
    private var keys: [[UInt8]] = []
    private var values: [Value] = []
    private var last = -1
    let capacity: Int

    init(capacity: Int = 4096) { self.capacity = capacity }

    /// The value for `text`, resolving and remembering it on a miss.
    mutating func value(for text: UnsafePointer<CChar>, resolve: (String) throws(AppleHealthError) -> Value) throws(AppleHealthError) -> Value {
        let length = strlen(text)
        if last >= 0, matches(keys[last], text, length) { return values[last] }
        for index in keys.indices where matches(keys[index], text, length) {
            last = index
            return values[index]
        }
        let string = String(cString: text)
        let value = try resolve(string)
        if keys.count < capacity {
            keys.append(Array(UnsafeRawBufferPointer(start: text, count: length)))
            values.append(value)
            last = keys.count - 1
        }
        return value
    }

    private func matches(_ key: [UInt8], _ text: UnsafePointer<CChar>, _ length: Int) -> Bool {
        key.count == length && (length == 0 || key.withUnsafeBytes { memcmp($0.baseAddress!, text, length) == 0 })
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
