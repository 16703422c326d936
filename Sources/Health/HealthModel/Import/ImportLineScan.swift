#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One NDJSON import line read in place, in one pass over its bytes: where each known field's
/// value lies, numbers already parsed, without a JSON value tree, member array or key strings.
///
/// Only the everyday shape is read — one flat object of the known sample fields with strings
/// without escapes, `metadata` an object of such strings — and it is read exactly as
/// ``JSONLineParser`` reads it (same grammar, whitespace, UTF-8 rules and `strtod` numbers).
/// Anything else gives nil: an escape, null, an array, a nested value elsewhere, a repeated or
/// unknown name, a workout's fields, a value of an unexpected kind, broken JSON. The caller then
/// runs the general parser, which decides the line and words any error; so a scan never has to
/// explain itself, and it never accepts what the general parser refuses.
struct ImportLineScan {
    var type: Range<Int>?
    var valueNumber: Double?
    var valueName: Range<Int>?
    var unit: Range<Int>?
    var start: Range<Int>?
    var end: Range<Int>?
    var source: Range<Int>?
    var sourceVersion: Range<Int>?
    var device: Range<Int>?
    var zone: Range<Int>?
    var syncID: Range<Int>?
    var syncVersion: Double?
    var userEntered: Bool?
    var id: Range<Int>?
    /// Name and value of each `metadata` member, in line order (empty when absent).
    var metadata: [(name: Range<Int>, value: Range<Int>)] = []

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        guard scanLine() else { return nil }
    }

    private enum Key: Int {
        case type, value, unit, start, end, source, sourceVersion, device, zone, syncID, syncVersion, userEntered, metadata, id
    }

    private mutating func scanLine() -> Bool {
        skipSpace()
        guard next(is: UInt8(ascii: "{")) else { return false }
        skipSpace()
        if next(is: UInt8(ascii: "}")) { return finish() }
        var seen: UInt16 = 0
        while true {
            skipSpace()
            guard let name = string(), let key = key(name) else { return false }
            let bit: UInt16 = 1 << UInt16(key.rawValue)
            guard seen & bit == 0 else { return false }
            seen |= bit
            skipSpace()
            guard next(is: UInt8(ascii: ":")) else { return false }
            skipSpace()
            guard member(key) else { return false }
            skipSpace()
            if next(is: UInt8(ascii: ",")) { continue }
            if next(is: UInt8(ascii: "}")) { return finish() }
            return false
        }
    }

    /// Nothing but whitespace may follow the object.
    private mutating func finish() -> Bool {
        skipSpace()
        return index == bytes.count
    }

    private mutating func member(_ key: Key) -> Bool {
        switch key {
        case .value:
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: "\"") {
                valueName = string()
                return valueName != nil
            }
            valueNumber = number()
            return valueNumber != nil
        case .syncVersion:
            syncVersion = number()
            return syncVersion != nil
        case .userEntered:
            userEntered = boolean()
            return userEntered != nil
        case .metadata:
            return metadataObject()
        case .type: type = string(); return type != nil
        case .unit: unit = string(); return unit != nil
        case .start: start = string(); return start != nil
        case .end: end = string(); return end != nil
        case .source: source = string(); return source != nil
        case .sourceVersion: sourceVersion = string(); return sourceVersion != nil
        case .device: device = string(); return device != nil
        case .zone: zone = string(); return zone != nil
        case .syncID: syncID = string(); return syncID != nil
        case .id: id = string(); return id != nil
        }
    }

    private mutating func metadataObject() -> Bool {
        guard next(is: UInt8(ascii: "{")) else { return false }
        skipSpace()
        if next(is: UInt8(ascii: "}")) { return true }
        while true {
            skipSpace()
            guard let name = string() else { return false }
            skipSpace()
            guard next(is: UInt8(ascii: ":")) else { return false }
            skipSpace()
            guard let value = string() else { return false }
            metadata.append((name, value))
            skipSpace()
            if next(is: UInt8(ascii: ",")) { continue }
            return next(is: UInt8(ascii: "}"))
        }
    }

    /// The known sample field a member name spells, by length then bytes.
    private func key(_ name: Range<Int>) -> Key? {
        func spells(_ word: StaticString) -> Bool {
            memcmp(bytes.baseAddress! + name.lowerBound, word.utf8Start, word.utf8CodeUnitCount) == 0
        }
        switch name.count {
        case 2: return spells("id") ? .id : nil
        case 3: return spells("end") ? .end : nil
        case 4: return spells("type") ? .type : spells("unit") ? .unit : spells("zone") ? .zone : nil
        case 5: return spells("start") ? .start : spells("value") ? .value : nil
        case 6: return spells("source") ? .source : spells("device") ? .device : nil
        case 7: return spells("sync_id") ? .syncID : nil
        case 8: return spells("metadata") ? .metadata : nil
        case 12: return spells("sync_version") ? .syncVersion : spells("user_entered") ? .userEntered : nil
        case 14: return spells("source_version") ? .sourceVersion : nil
        default: return nil
        }
    }

    private mutating func next(is byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D || bytes[index] == 0x0A {
            index += 1
        }
    }

    /// The bytes between the quotes of a string without escapes or control characters whose
    /// UTF-8 is well formed (``JSONLineParser``'s rules), so they are the string's text as is.
    private mutating func string() -> Range<Int>? {
        guard next(is: UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return start..<(index - 1)
            }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
            if byte < 0x80 {
                index += 1
            } else {
                guard case .success(let length) = UTF8Sequence.length(bytes, at: index) else { return nil }
                index += length
            }
        }
        return nil
    }

    private mutating func boolean() -> Bool? {
        func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else { return false }
            index += count
            return true
        }
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// A JSON number, the same Double ``JSONLineParser`` gives: whole numbers of up to 15 digits
    /// are exact either way; anything else goes through the same `strtod`.
    private mutating func number() -> Double? {
        let start = index
        let negative = next(is: UInt8(ascii: "-"))
        let integerStart = index
        var magnitude = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
            if index - integerStart < 15 { magnitude = magnitude * 10 + Int(bytes[index] - 48) }
            index += 1
        }
        let integerDigits = index - integerStart
        guard integerDigits > 0, bytes[integerStart] != 48 || integerDigits == 1 else { return nil }
        var whole = integerDigits <= 15
        if next(is: UInt8(ascii: ".")) {
            whole = false
            let fractionStart = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            guard index > fractionStart else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            whole = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            guard index > exponentStart else { return nil }
        }
        if whole { return negative ? -Double(magnitude) : Double(magnitude) }
        let length = index - start
        guard length < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
            for offset in 0..<length { buffer[offset] = CChar(bitPattern: bytes[start + offset]) }
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }
}
