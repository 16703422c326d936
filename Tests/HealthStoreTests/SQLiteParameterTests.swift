import Foundation
import Testing
@testable import HealthStore

/// Text and blob parameters are copied into buffers the statement keeps (bound `SQLITE_STATIC`)
/// up to ``SQLiteStatement/largestKeptParameter`` bytes, and by SQLite beyond: whatever the
/// lengths bound one after another to the same parameter, a run must read the last value bound.
@Suite struct SQLiteParameterTests {
    static func connection() throws -> Connection {
        Connection(engine: try SQLiteEngine.open(path: ":memory:", create: true).get())
    }

    /// Lengths around each buffer size: empty, within and past 16 bytes, within and past the kept maximum.
    static let lengths = [0, 1, 15, 16, 17, 100, 255, 256, 257, 1_000, 3, 300, 16, 0, 70_000, 5]

    @Test func textOfEveryLengthReadsBackAsBound() throws {
        let connection = try Self.connection()
        let select = try connection.prepare("SELECT ?, typeof(?1), length(?1)").get()
        for (round, length) in Self.lengths.enumerated() {
            let text = String(repeating: round % 2 == 0 ? "é" : "x", count: length)
            select.bind(1, text)
            #expect(try select.step().get())
            #expect(select.text(0) == text)
            #expect(select.text(1) == "text")  // an empty string is not NULL
            #expect(select.int(2) == length)
            select.reset()
        }
    }

    @Test func blobsAndUUIDsOfEveryLengthReadBackAsBound() throws {
        let connection = try Self.connection()
        let select = try connection.prepare("SELECT ?, typeof(?1), ?").get()
        for (round, length) in Self.lengths.enumerated() {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) }
            let id = UUID()
            select.base.bind(1, blob: bytes)
            select.bind(2, id)
            #expect(try select.step().get())
            #expect(select.base.blob(0) == bytes)
            #expect(select.text(1) == "blob")  // an empty blob is not NULL
            #expect(select.uuid(2) == id)
            select.reset()
        }
    }

    /// A multi-row insert binds hundreds of parameters, each from its own buffer, and keeps them
    /// between runs (every run binds all of them again).
    @Test func manyParametersKeepTheirOwnValuesAcrossRunsThatKeepBindings() throws {
        let connection = try Self.connection()
        try connection.execute("CREATE TABLE t (round INTEGER, position INTEGER, label TEXT, id BLOB)").get()
        let rows = 64
        let insert = try connection.prepare("INSERT INTO t VALUES "
            + Array(repeating: "(?, ?, ?, ?)", count: rows).joined(separator: ", ")).get()
        var expected: [String] = []
        for round in 0..<3 {
            for position in 0..<rows {
                let base = Int32(position * 4)
                let label = String(repeating: "\(round)-\(position)/", count: (position + round) % 40)
                let id = UUID()
                insert.bind(base + 1, Int64(round))
                insert.bind(base + 2, Int64(position))
                insert.bind(base + 3, label)
                insert.bind(base + 4, id)
                expected.append("\(round) \(position) \(label) \(id)")
            }
            try insert.run(keepingBindings: true).get()
        }
        let select = try connection.prepare("SELECT round, position, label, id FROM t ORDER BY rowid").get()
        var stored: [String] = []
        while try select.step().get() {
            stored.append("\(select.int(0)) \(select.int(1)) \(select.text(2) ?? "NULL") \(select.uuid(3).map { "\($0)" } ?? "NULL")")
        }
        #expect(stored == expected)
    }
}
