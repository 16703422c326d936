#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an everyday sample line names besides its times and value — its type, unit, source and
/// device — resolved once per distinct spelling: an import file names a handful over millions of
/// lines. ``number`` is its position in the context's cache, so that a caller can keep what it
/// resolves per series (a store's ids) in an array.
public struct ImportSeries: Sendable {
    public let number: Int
    public let type: SampleType
    /// The unit the line gives, or the type's canonical unit when it gives none (quantities only).
    public let unit: HealthUnit?
    public let source: AppIdentity
    public let device: DeviceInfo?
    let maximumDuration: Double
    let plausibleRange: PlausibleRange?
}

/// The byte spellings of a line's series: ranges of the line, nil where the field is absent.
struct ImportSeriesKey {
    var type: Range<Int>
    var unit: Range<Int>?
    var source: Range<Int>
    var version: Range<Int>?
    var device: Range<Int>?
}

/// Series by the bytes that spell them, compared byte for byte (the store keeps names byte for
/// byte; String equality would match canonically equivalent spellings). At most ``capacity``
/// series: past that a line is not read by the fast path (the general one reads it), so the
/// cache stays small whatever the file.
final class ImportSeriesCache {
    static var capacity: Int { 64 }
    /// Every key's bytes, one after another.
    private var arena: [UInt8] = []
    /// Per series: where its key starts in ``arena`` and each part's length (-1: absent).
    private var keys: [(offset: Int, lengths: SIMD8<Int32>)] = []
    private(set) var series: [ImportSeries] = []
    /// Lines come in runs of a few series: the search starts at the last one found.
    private var lastFound = 0

    /// The series `key` spells in `line`, else `resolve` of it, kept when non-nil and there is room.
    func series(_ key: ImportSeriesKey, in line: UnsafeBufferPointer<UInt8>,
                resolve: (ImportSeriesKey, _ number: Int) -> ImportSeries?) -> ImportSeries? {
        let lengths = Self.lengths(key)
        let count = keys.count
        if count > 0 {
            let found: Int? = arena.withUnsafeBufferPointer { arena in
                var position = lastFound
                for _ in 0..<count {
                    if keys[position].lengths == lengths, Self.matches(key, line, arena, from: keys[position].offset) { return position }
                    position += 1
                    if position == count { position = 0 }
                }
                return nil
            }
            if let found {
                lastFound = found
                return series[found]
            }
        }
        guard count < Self.capacity, let resolved = resolve(key, count) else { return nil }
        keys.append((arena.count, lengths))
        for part in [key.type, key.unit, key.source, key.version, key.device] {
            if let part { arena.append(contentsOf: UnsafeBufferPointer(rebasing: line[part])) }
        }
        series.append(resolved)
        lastFound = count
        return resolved
    }

    private static func lengths(_ key: ImportSeriesKey) -> SIMD8<Int32> {
        func length(_ part: Range<Int>?) -> Int32 { part.map { Int32($0.count) } ?? -1 }
        return SIMD8(length(key.type), length(key.unit), length(key.source), length(key.version), length(key.device), 0, 0, 0)
    }

    /// Whether the key's parts (whose lengths are known to match) are the bytes stored from `offset`.
    private static func matches(_ key: ImportSeriesKey, _ line: UnsafeBufferPointer<UInt8>,
                                _ arena: UnsafeBufferPointer<UInt8>, from offset: Int) -> Bool {
        var offset = offset
        func same(_ part: Range<Int>?) -> Bool {
            guard let part, !part.isEmpty else { return true }
            defer { offset += part.count }
            return memcmp(line.baseAddress! + part.lowerBound, arena.baseAddress! + offset, part.count) == 0
        }
        return same(key.type) && same(key.unit) && same(key.source) && same(key.version) && same(key.device)
    }
}
