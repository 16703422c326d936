/// The contributions ("parts") that live streams made to one stored live sample, kept in the
/// sample's metadata so that a later stream can add its readings for the same minute without
/// losing the earlier ones or counting any of them twice.
///
/// A part is everything one ``LiveStream`` filed under one minute, identified by
/// ``LiveMinute/part``: the reader's time, in milliseconds, of the first reading it filed there.
/// A reconnect or a reader restart within the minute starts a new stream, so a new part; a
/// replay of the same recording reproduces the same times, so the same part, which replaces
/// itself instead of adding. The sample's value is always the combination of all its parts.
///
/// Stored as metadata `bandkit.live.parts` = `key=payload;key=payload` with integer payloads
/// per type (steps; decimetres; decikilocalories,kilojoules; count,sum,min,max,without-contact;
/// RR intervals in 1/1024 s). At most ``maximumParts`` are kept: beyond that the two earliest
/// are folded into one whose key lists both (`k1+k2`); a part already inside a fold is never
/// added again. A stored live sample from before parts existed becomes one part keyed `0`.
struct LiveMinuteParts: Equatable {
    static let metadataKey = "bandkit.live.parts"
    static let maximumParts = 16

    /// Keys (`k` or `k1+k2+…`) with their integer payloads, in key order.
    private(set) var parts: [(key: String, values: [Int])] = []

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.parts.count == rhs.parts.count && zip(lhs.parts, rhs.parts).allSatisfy { $0.key == $1.key && $0.values == $1.values }
    }

    init() {}

    /// Parses the metadata text; nil when it is damaged (the caller keeps the stored sample as a
    /// single opaque part rather than guessing).
    init?(stored text: String) {
        for entry in text.split(separator: ";") {
            guard let equals = entry.firstIndex(of: "=") else { return nil }
            let key = String(entry[..<equals])
            let payload = entry[entry.index(after: equals)...]
            guard !key.isEmpty, key.split(separator: "+").allSatisfy({ Int64($0) != nil }) else { return nil }
            var values: [Int] = []
            for field in payload.split(separator: ",", omittingEmptySubsequences: false) where !field.isEmpty {
                guard let value = Int(field) else { return nil }
                values.append(value)
            }
            parts.append((key, values))
        }
    }

    var stored: String {
        parts.map { "\($0.key)=" + $0.values.map(String.init).joined(separator: ",") }.joined(separator: ";")
    }

    /// Whether `key` is already counted, on its own or inside a fold.
    func contains(_ key: Int64) -> Bool {
        let text = String(key)
        return parts.contains { $0.key.split(separator: "+").contains { $0 == text } }
    }

    /// Adds (or replaces) the part `key`. Returns false when nothing changed: the same part with
    /// the same values is already there, or the key is already folded into another part.
    mutating func merge(key: Int64, values: [Int], combine: ([Int], [Int]) -> [Int]) -> Bool {
        let text = String(key)
        if let index = parts.firstIndex(where: { $0.key == text }) {
            if parts[index].values == values { return false }
            parts[index].values = values
            return true
        }
        if contains(key) { return false }
        parts.append((text, values))
        parts.sort { Self.firstKey($0.key) < Self.firstKey($1.key) }
        while parts.count > Self.maximumParts {
            let first = parts.removeFirst()
            parts[0] = (first.key + "+" + parts[0].key, combine(first.values, parts[0].values))
        }
        return true
    }

    /// Removes one part (a history part another record takes the place of).
    mutating func removePart(at index: Int) { parts.remove(at: index) }

    /// Every part combined.
    func total(_ combine: ([Int], [Int]) -> [Int]) -> [Int]? {
        guard var result = parts.first?.values else { return nil }
        for part in parts.dropFirst() { result = combine(result, part.values) }
        return result
    }

    private static func firstKey(_ key: String) -> Int64 {
        key.split(separator: "+").first.flatMap { Int64($0) } ?? 0
    }

    // MARK: Combining, per type

    /// Steps, distance, energy: field-wise sums.
    static func sum(_ a: [Int], _ b: [Int]) -> [Int] {
        (0..<max(a.count, b.count)).map { (a.indices.contains($0) ? a[$0] : 0) + (b.indices.contains($0) ? b[$0] : 0) }
    }

    /// Heart rate: the two parts' ``HeartRateAccumulator``s merged; a part with the wrong number
    /// of fields (damaged metadata) gives way to the other.
    static func heartRate(_ a: [Int], _ b: [Int]) -> [Int] {
        guard a.count == HeartRateAccumulator.storedFieldCount else { return b }
        guard b.count == HeartRateAccumulator.storedFieldCount else { return a }
        return HeartRateAccumulator(storedFields: a).merged(with: HeartRateAccumulator(storedFields: b)).storedFields
    }

    /// RR intervals: concatenated in part order, bounded like one stream's minute.
    static func intervals(_ a: [Int], _ b: [Int]) -> [Int] {
        Array((a + b).prefix(MinuteAggregator.maximumRRIntervalsPerMinute))
    }
}
