#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ServiceSupport
import Testing

@Suite struct ServiceLogTests {
    /// 2026-12-07T10:00:00.123Z
    static let fixedTime: @Sendable () -> timespec = { timespec(tv_sec: 1_796_637_600, tv_nsec: 123_456_789) }

    final class Lines: @unchecked Sendable {
        var all: [String] = []
    }

    func log(_ format: ServiceLog.Format, level: LogLevel = .info, timestamps: Bool = false) -> (ServiceLog, Lines) {
        let lines = Lines()
        let log = ServiceLog(format: format, minimumLevel: level, timestamps: timestamps, write: { lines.all.append(String(decoding: $0, as: UTF8.self)) },
                             clock: Self.fixedTime)
        return (log, lines)
    }

    @Test func textLinesCarryThePriorityPrefixAndFields() {
        let (log, lines) = log(.text)
        log.info("connected", ["device": "c0:ff:ee:00:00:01", "rssi": -61, "name": "Band 2", "bonded": true, "lag": 1.5, "empty": ""])
        log.error("store unreachable", ["error": "connection refused"])
        log.warning("w")
        log.notice("n")
        log.debug("not shown")
        #expect(lines.all == [
            "<6>connected device=c0:ff:ee:00:00:01 rssi=-61 name=\"Band 2\" bonded=true lag=1.5 empty=\"\"\n",
            "<3>store unreachable error=\"connection refused\"\n",
            "<4>w\n",
            "<5>n\n",
        ])
    }

    @Test func controlCharactersNeverSplitALine() {
        let (log, lines) = log(.text, level: .debug)
        log.debug("event\nforged <3>line", ["name": "Band\u{1B}[2J\n<3>fake \"quoted\" \\", "key with space": 1])
        #expect(lines.all == ["<7>event\\nforged <3>line name=\"Band\\e[2J\\n<3>fake \\\"quoted\\\" \\\\\" key_with_space=1\n"])
    }

    /// A right-to-left override in a device's name would make a console showing the journal
    /// print the rest of the line reversed: it is escaped as every command's output escapes it.
    @Test func bidirectionalOverridesAreEscaped() {
        let (log, lines) = log(.text, level: .debug)
        log.info("paired", ["name": "Band\u{202E}1 tset"])
        #expect(lines.all == ["<6>paired name=\"Band\\u{202e}1 tset\"\n"])
    }

    @Test func textLinesOutsideTheJournalCarryATime() {
        let (log, lines) = log(.text, timestamps: true)
        log.info("started")
        #expect(lines.all == ["<6>2026-12-07T10:00:00.123Z started\n"])
    }

    @Test func jsonLinesParse() throws {
        let (log, lines) = log(.json, level: .debug)
        log.info("connected", ["device": "c0:ff:ee:00:00:01", "rssi": -61, "bonded": true, "lag": 1.5])
        log.debug("odd", ["name": "Band\u{1B}\n\u{0}\"\\", "nan": .number(.nan), "level": "shadow"])
        #expect(lines.all.count == 2)
        for line in lines.all {
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["time"] as? String == "2026-12-07T10:00:00.123Z")
        }
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines.all[0].utf8)) as? [String: Any])
        #expect(first["level"] as? String == "info" && first["priority"] as? Int == 6 && first["message"] as? String == "connected")
        #expect(first["device"] as? String == "c0:ff:ee:00:00:01" && first["rssi"] as? Int == -61 && first["bonded"] as? Bool == true)
        let second = try #require(try JSONSerialization.jsonObject(with: Data(lines.all[1].utf8)) as? [String: Any])
        #expect(second["name"] as? String == "Band\u{1B}\n\u{0}\"\\")
        #expect(second["nan"] is NSNull)
        #expect(second["level"] as? String == "debug" && second["_level"] as? String == "shadow")
    }

    @Test func valuesAreBounded() {
        let (log, lines) = log(.text)
        log.info("big", ["value": .text(String(repeating: "x", count: 10_000))])
        #expect(lines.all[0].utf8.count < ServiceLog.maximumValueBytes + 64)
        #expect(lines.all[0].hasSuffix("…\n"))
    }

    @Test func levelsHaveNames() {
        #expect(LogLevel(name: "warning") == .warning)
        #expect(LogLevel(name: "loud") == nil)
        #expect(LogLevel.error < LogLevel.info)
    }

    @Test func journalStreamMustNameStandardError() {
        var status = stat()
        fstat(2, &status)
        #expect(ServiceLog.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]))
        #expect(!ServiceLog.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"]))
        #expect(!ServiceLog.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "garbage"]))
        #expect(!ServiceLog.standardErrorIsJournal(environment: [:]))
    }
}
