import HealthTestSupport
import Foundation
import HealthModel
@testable import HealthStore
@testable import HealthStorePostgreSQL
import Testing

/// PostgreSQL URLs: parsing, redaction, and the dialect rewrite; no server needed.
@Suite struct PostgresURLTests {
    /// Only libpq can tell a malformed URL: the engine must be registered for parse to ask it.
    init() { HealthStore.enablePostgreSQL() }

    @Test func thePasswordIsRedactedFromUserInfoAndParameters() {
        #expect(StoreLocation.redacted("postgresql://ann:s3cret@db.example/health?sslmode=require")
                == "postgresql://ann:***@db.example/health?sslmode=require")
        #expect(StoreLocation.redacted("postgres://ann@db/h?password=s3cret&sslmode=verify-full")
                == "postgres://ann@db/h?password=***&sslmode=verify-full")
        #expect(StoreLocation.redacted("postgresql:///h?host=/run/pg") == "postgresql:///h?host=/run/pg")
        #expect(StoreLocation.redacted("/var/lib/health.sqlite") == "/var/lib/health.sqlite")
        // An '@' in the password (percent-encoded or not) does not leave a piece of it behind.
        #expect(StoreLocation.redacted("postgresql://ann:p@ss@db/h") == "postgresql://ann:***@db/h")
    }

    @Test func libpqsMessagesLoseThePasswordEvenPercentDecoded() {
        let url = "postgresql://ann:s%33cret@db/h?password=other"
        let message = "invalid URI \"\(url)\"; password s3cret, other"
        let scrubbed = StoreLocation.scrubbed(message, of: url)
        #expect(!scrubbed.contains("s3cret") && !scrubbed.contains("s%33cret") && !scrubbed.contains("other"), "\(scrubbed)")
    }

    @Test(arguments: ["postgresql://ann:s3cret@[::1/h", "postgresql://db/h?bogus=s3cret", "postgres://ann:s3cret@db/h%zz"])
    func aMalformedURLIsAUsageErrorThatNeverShowsThePassword(url: String) throws {
        #expect(throws: StoreLocation.MalformedURL.self) { try StoreLocation.parse(url) }
        let result = try HealthCommand(store: url).run(["stats", "step-count"])
        #expect(result.code == 64, "\(result.error)")
        #expect(result.error.contains("is not a valid PostgreSQL URL"), "\(result.error)")
        #expect(!result.error.contains("s3cret") || url.contains("bogus=s3cret") && result.error.contains("bogus"), "\(result.error)")
        #expect(!result.error.contains(":s3cret@"), "\(result.error)")
    }

    @Test func anUnreachableServerFailsWithExitOneNamingTheRedactedURL() throws {
        let url = "postgresql://ann:s3cret@/health?host=/nonexistent-bandkit-socket-dir&password=t0psecret&connect_timeout=2"
        for arguments in [["stats", "step-count"], ["import", "/dev/null"]] {
            let result = try HealthCommand(store: url).run(arguments)
            #expect(result.code == 1, "\(result.error)")
            #expect(result.error.contains("postgresql://ann:***@/health"), "\(result.error)")
            #expect(result.error.contains("connect"), "\(result.error)")
            #expect(!result.error.contains("s3cret") && !result.error.contains("t0psecret"), "\(result.error)")
        }
    }

    @Test func parametersBecomeNumberedAndQuotedTextIsLeftAlone() {
        let translated = PostgresDialect.translate("SELECT '?', \"a?\" FROM t WHERE x = ? AND y = ?3 -- why?\nAND z = ?")
        #expect(translated.sql == "SELECT '?', \"a?\" FROM t WHERE x = $1 AND y = $3 -- why?\nAND z = $4")
        #expect(translated.parameterCount == 4)
        #expect(translated.used == [1, 3, 4])
    }

    /// Found by fuzz/sqlrewriter: the hint removal and the json_each rewrite worked on the raw text.
    @Test func quotedTextAndCommentsHoldingHintsAndJSONEachAreLeftAlone() {
        let sql = "SELECT 'it''s INDEXED BY x', \"json_each(?)\" FROM t -- INDEXED BY y ?\n WHERE a = ?2"
        let translated = PostgresDialect.translate(sql)
        #expect(translated.sql == "SELECT 'it''s INDEXED BY x', \"json_each(?)\" FROM t -- INDEXED BY y ?\n WHERE a = $2")
        #expect(translated.used == [2] && translated.problem == nil)
        #expect(PostgresDialect.removingIndexHints(sql) == sql)
        #expect(PostgresDialect.removingIndexHints("SELECT a FROM sample INDEXED BY by_type WHERE b = 'INDEXED BY'")
                == "SELECT a FROM sample WHERE b = 'INDEXED BY'")
    }

    /// fuzz/findings/sqlrewriter-hint-rejoined: dropping a hint must not join its neighbours
    /// into a new one, however many times in a row, nor into a comment or another token.
    @Test(arguments: [
        ("x INDEXED INDEXED BY DEXED BY j", "x"),
        ("x = INDEXED INDEXED BY DEXED BY jBY DEXED BY j", "x = DEXED BY j"),
        ("a INDEXED INDEXED INDEXED BY i BY j BY k WHERE b", "a WHERE b"),
        ("a INDEX INDEXED BY i ED BY j", "a INDEX ED BY j"),
        ("a INDEXED BY INDEXED BY i", "a BY i"),
        ("sj - INDEXED BY s-x INDEXED BY t", "sj - -x"),
        ("a / INDEXED BY i* b */ c < INDEXED BY j> d", "a / * b */ c < > d"),
        ("FROM sample INDEXED BY by_type)", "FROM sample )"),
    ])
    func droppingAHintNeverJoinsItsNeighboursIntoAnother(sql: String, expected: String) {
        #expect(PostgresDialect.translate(sql).sql == expected)
        #expect(PostgresDialect.removingIndexHints(sql) == expected)
    }

    /// A third sqlrewriter finding: what ends a `json_each` argument must not read on into the
    /// rewrite's own ` AS json` (`x INDEXED BY` + ` AS` was a hint).
    @Test func aJSONEachArgumentIsClosedInItsOwnParentheses() {
        #expect(PostgresDialect.translate("SELECT value FROM json_each(x INDEXED BY)").sql
                == "SELECT value FROM json_array_elements_text(CAST((x INDEXED BY) AS json)) AS json_each(value)")
    }

    @Test func aJSONEachArgumentEndsAtItsMatchingParenthesis() {
        #expect(PostgresDialect.translate("SELECT value FROM json_each(f(?, 'a)')) WHERE z = ?").sql
                == "SELECT value FROM json_array_elements_text(CAST((f($1, 'a)')) AS json)) AS json_each(value) WHERE z = $2")
        #expect(PostgresDialect.translate("SELECT my_json_each(?)").sql == "SELECT my_json_each($1)")
    }

    @Test func parameterNumbersOutsideTheProtocolsRangeAndDollarSignsAreRefused() {
        for sql in ["SELECT ?0", "SELECT ?65536", "SELECT ?99999999999999999999", "SELECT $1 FROM t WHERE a = ?",
                    "SELECT " + Array(repeating: "?", count: 65_536).joined(separator: ",")] {
            let translated = PostgresDialect.translate(sql)
            #expect(translated.problem != nil, "\(sql.prefix(40))")
            #expect(translated.parameterCount == 0 && translated.used.isEmpty)
        }
        #expect(PostgresDialect.translate("SELECT ?0").problem == "parameter ?0 at offset 7 is outside 1…65535")
        let highest = PostgresDialect.translate("SELECT ?65535, '$1'")
        #expect(highest.problem == nil && highest.parameterCount == 65_535 && highest.sql == "SELECT $65535, '$1'")
    }

    @Test func indexHintsAndJSONArraysAreRewritten() {
        let translated = PostgresDialect.translate(
            "SELECT a FROM sample INDEXED BY sample_by_type_time WHERE a IN (SELECT value FROM json_each(?7))")
        #expect(translated.sql
                == "SELECT a FROM sample WHERE a IN (SELECT value FROM json_array_elements_text(CAST(($7) AS json)) AS json_each(value))")
    }
}

/// The store on a real PostgreSQL server (Tests/checks/postgres.sh provides one); skipped without it.
@Suite(.enabled(if: TemporaryStore.usesPostgreSQL, "needs BANDKIT_TEST_POSTGRES_URL (Tests/checks/postgres.sh)"))
struct PostgresStoreTests {
    /// Deterministic overlapping samples from three sources, one device among them.
    func writeOverlappingDay(into store: HealthStore) throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let start = at("2026-11-30T00:00:00+01:00")
        let device = DeviceInfo(name: "Band", manufacturer: "BandKit", model: "B1", hardwareIdentifier: "AA:BB", firmwareVersion: "1")
        try store.write(as: .owner) { tx in
            for source in [band, watch, phoneA] {
                for _ in 0..<150 {
                    let from = start.addingTimeInterval(Double(next(24 * 60)) * 60 + Double(next(60)))
                    let to = from.addingTimeInterval(Double(1 + next(90)) * 60)
                    let count = Double(next(4000)) / 7
                    try tx.save(QuantitySample(type: .stepCount, quantity: Quantity(count, .count), start: from, end: to,
                                               device: source == band ? device : nil), attributedTo: source)
                    let beat = from.addingTimeInterval(Double(next(600)))
                    try tx.save(QuantitySample(type: .heartRate, quantity: Quantity(Double(50 + next(120)), .countPerMinute),
                                               start: beat, end: beat), attributedTo: source)
                }
            }
        }
        try store.setSourcePriority(for: .quantity(.stepCount), sources: [watch.id, band.id])
    }

    @Test func theSameSamplesGiveTheSameStatisticsOnBothEngines() throws {
        let postgres = try TemporaryStore()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-vs-sqlite-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sqlite = try HealthStore(path: directory + "/health.sqlite")
        try writeOverlappingDay(into: postgres.store)
        try writeOverlappingDay(into: sqlite)
        let day = at("2026-11-29T12:00:00+01:00")..<at("2026-12-02T00:00:00+01:00")
        for (type, options) in [(QuantityType.stepCount, StatisticsOptions.sum),
                                (.heartRate, [.average, .minimum, .maximum, .mostRecent] as StatisticsOptions)] {
            for bucket in [BucketInterval.hour, .day, .minute] {
                for zoneName in ["Europe/Berlin", "Asia/Kolkata"] {
                    for bySource in [false, true] {
                        let onPostgres = try postgres.store.statistics(type: type, range: day, options: options, bucket: bucket,
                                                                       timeZone: zone(zoneName), bySource: bySource, as: .owner)
                        let onSQLite = try sqlite.statistics(type: type, range: day, options: options, bucket: bucket,
                                                             timeZone: zone(zoneName), bySource: bySource, as: .owner)
                        #expect(onPostgres == onSQLite, "\(type) \(bucket) \(zoneName) bySource \(bySource)")
                    }
                }
            }
        }
        #expect(try postgres.store.sourcePriority(for: .quantity(.stepCount)) == sqlite.sourcePriority(for: .quantity(.stepCount)))
        // Each store gave its samples their own UUIDs: compare everything else.
        func fields(_ samples: [Sample]) -> [String] {
            samples.compactMap(\.quantitySample).map {
                "\($0.start.timeIntervalSince1970) \($0.end.timeIntervalSince1970) \($0.quantity.value) \($0.source?.id ?? "") \(String(describing: $0.device))"
            }
        }
        let query = HealthQuery(type: .stepCount, range: day)
        #expect(try fields(postgres.store.samples(query, as: .owner)) == fields(sqlite.samples(query, as: .owner)))
        let changesOnPostgres = try postgres.store.changes(since: Anchor(rawValue: 0), as: .owner)
        let changesOnSQLite = try sqlite.changes(since: Anchor(rawValue: 0), as: .owner)
        #expect(fields(changesOnPostgres.samples) == fields(changesOnSQLite.samples))
        #expect(changesOnPostgres.newAnchor == changesOnSQLite.newAnchor)
    }

    @Test func aWaitingReaderWakesOnTheWritersNotifyNotByPolling() throws {
        let temp = try TemporaryStore()
        let writer = try HealthStore(path: temp.path)
        let anchor = try temp.store.currentAnchor()
        let began = Date()
        let woke = Locked<Anchor?>(nil)
        let reader = temp.store
        let thread = Thread {
            // A re-check interval longer than the test: only the notification can wake it in time.
            let result = try? reader.waitForChanges(after: anchor, timeout: .seconds(20), recheckInterval: .seconds(30))
            woke.withLock { $0 = result ?? nil }
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.5)
        try writer.write(as: .owner) { try $0.save(steps(42, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        while woke.withLock({ $0 }) == nil, Date().timeIntervalSince(began) < 15 { Thread.sleep(forTimeInterval: 0.05) }
        #expect(woke.withLock { $0 } == Anchor(rawValue: 1))
        #expect(Date().timeIntervalSince(began) < 5)
    }

    @Test func aConnectionTheServerDroppedIsReestablishedAtTheNextTransaction() throws {
        let temp = try TemporaryStore()
        let name = "bandkit_drop_" + UUID().uuidString.prefix(8).lowercased()
        let store = try HealthStore(path: temp.path + "&application_name=" + name)
        try store.write(as: .owner) { try $0.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        try TemporaryStore.psql(TemporaryStore.postgresURL!,
                                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
        // The transaction finds the connection dead at BEGIN, reconnects and goes on.
        try store.write(as: .owner) { try $0.save(steps(2, "2026-11-30T08:01:00Z", "2026-11-30T08:02:00Z")) }
        #expect(try store.samples(HealthQuery(type: .stepCount), as: .owner).count == 2)
        let values = try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).compactMap { $0.quantitySample?.quantity.value }
        #expect(values.sorted() == [1, 2])
    }

    @Test func concurrentWritersOnTwoConnectionsKeepTheVersionRule() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(band, [.quantity(.stepCount)])
        let stores = [temp.store, try HealthStore(path: temp.path)]
        let failures = Locked<[String]>([])
        // Two gateways deliver the same 60 minutes, each in its own order of versions.
        let threads = stores.enumerated().map { index, store in
            Thread {
                for round in 0..<3 {
                    do {
                        try store.write(as: band) { tx in
                            for minute in 0..<60 {
                                let version = Int64(index == 0 ? round : 2 - round) + Int64(minute % 2)
                                let start = at("2026-11-30T08:00:00Z").addingTimeInterval(Double(minute) * 60)
                                let sample = QuantitySample(type: .stepCount, quantity: Quantity(Double(version * 100 + Int64(minute)), .count),
                                                            start: start, end: start.addingTimeInterval(60),
                                                            syncIdentifier: "minute-\(minute)", syncVersion: version)
                                try tx.save(sample)
                            }
                        }
                    } catch { failures.withLock { $0.append("\(error)") } }
                }
            }
        }
        threads.forEach { $0.start() }
        let began = Date()
        while temp.store.isBusyWriting(threads), Date().timeIntervalSince(began) < 30 { Thread.sleep(forTimeInterval: 0.05) }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let samples = try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).compactMap(\.quantitySample)
        #expect(samples.count == 60)  // no duplicates, none lost
        for sample in samples {
            let minute = Int(sample.syncIdentifier!.dropFirst("minute-".count))!
            let highest = Int64(2 + minute % 2)
            #expect(sample.syncVersion == highest)
            #expect(sample.quantity.value == Double(highest * 100 + Int64(minute)))
        }
        let day = at("2026-11-30T00:00:00Z")..<at("2026-12-01T00:00:00Z")
        let total = try temp.store.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("UTC"), as: .owner)
        #expect(total.first?.sum == samples.map(\.quantity.value).reduce(0, +))
    }
}

extension HealthStore {
    /// Whether any of `threads` is still running (Foundation's Thread has no join).
    fileprivate func isBusyWriting(_ threads: [Thread]) -> Bool { threads.contains { !$0.isFinished } }
}

/// A value shared with a thread.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
