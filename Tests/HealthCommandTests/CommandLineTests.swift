import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import JSONOutput
import Testing

@Suite struct CommandLineTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    @Test func anUnknownTypeIsAUsageErrorNamingIt() throws {
        let result = try health.run("add", "stepz", "5")
        #expect(result.code == 64)
        #expect(result.error.contains("unknown type 'stepz'"))
    }

    @Test func anIncompatibleUnitIsAUsageError() throws {
        let result = try health.run("add", "step-count", "5", "kg")
        #expect(result.code == 64)
        #expect(result.error.contains("cannot convert mass unit 'kg'"))
    }

    @Test func aBadTimeIsAUsageError() throws {
        let result = try health.run("query", "step-count", "--from", "2026-02-30T00:00:00Z", "--to", "2026-03-01T00:00:00Z")
        #expect(result.code == 64)
        #expect(result.error.contains("--from '2026-02-30T00:00:00Z'"))
    }

    @Test func aMalformedImportLineImportsNothingAndNamesTheLineAndField() throws {
        let input = minuteSteps(count: 2, source: "com.example.app")
            + #"{"type":"step-count","value":5,"start":"2026-11-30T09:00:00+01:00","end":"yesterday","source":"x"}"# + "\n"
            + minuteSteps(count: 2, source: "com.example.other")
        let result = try health.run("import", "-", input: input)
        #expect(result.code == 65)
        #expect(result.error.contains("line 3: field 'end'"))
        #expect(result.error.contains("nothing was imported"))
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).isEmpty)
    }

    @Test func anImportWithAnUnknownFieldIsRefused() throws {
        let result = try health.run("import", "-", input: #"{"type":"step-count","valeu":5,"start":"2026-11-30T09:00:00Z","source":"x"}"#)
        #expect(result.code == 65)
        #expect(result.error.contains("line 1: field 'valeu': unknown field"))
    }

    @Test func invalidUTF8InAnImportLineIsExit65WithLineAndByteAndImportsNothing() throws {
        let good = minuteSteps(count: 1, source: "com.example.app")
        for bad in [[0xFF, 0xFE], [0xC0, 0xAF]] as [[UInt8]] {
            let line = Array(#"{"type":"step-count","value":5,"start":"2026-11-30T09:00:00Z","source":"com."#.utf8) + bad + Array("\"}\n".utf8)
            let file = temp.directory + "/bad.ndjson"
            try (Data(good.utf8) + Data(line)).write(to: URL(fileURLWithPath: file))
            let result = try health.run("import", file)
            #expect(result.code == 65, "\(bad): \(result.error)")
            #expect(result.error.contains("line 2: malformed JSON at byte 77: invalid UTF-8"), "\(result.error)")
            #expect(result.error.contains("nothing was imported"))
        }
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).isEmpty)
    }

    @Test func implausibleSamplesAreExit65NamingTheLineAndNothingIsImported() throws {
        for (bad, words) in [
            (#"{"type":"step-count","value":10,"start":"0000-01-01T00:00:00Z","end":"9999-12-31T23:59:59Z","source":"x"}"#, "field 'start'"),
            (#"{"type":"step-count","value":-5,"start":"2026-11-30T09:00:00Z","source":"x"}"#, "field 'value': step-count -5 count is outside"),
            (#"{"type":"step-count","value":1e300,"start":"2026-11-30T09:00:00Z","source":"x"}"#, "field 'value'"),
            (#"{"type":"heart-rate","value":-70,"start":"2026-11-30T09:00:00Z","source":"x"}"#, "field 'value': heart-rate -70"),
        ] {
            let result = try health.run("import", "-", input: minuteSteps(count: 2, source: "com.example.app") + bad + "\n")
            #expect(result.code == 65, "\(bad): \(result.error)")
            #expect(result.error.contains("line 3: \(words)"), "\(result.error)")
        }
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).isEmpty)
        let add = try health.run("add", "step-count", "-5")
        #expect(add.code == 64 && add.error.contains("outside the plausible 0...1000000 count"), "\(add.error)")
        #expect(try health.run("add", "heart-rate", "60", "--start", "1850-01-01T00:00:00Z").code == 64)
    }

    @Test func namesWithControlCharactersAreEscapedInEveryTextOutput() throws {
        let evil = "com.evil\u{1B}[2J\n synced 99999 minutes into /etc/passwd"
        let line = #"{"type":"step-count","value":5,"start":"2026-11-30T09:00:00Z","end":"2026-11-30T09:01:00Z","source":"com.evil\u001b[2J\n synced 99999 minutes into /etc/passwd","device":"Dev\u001b]0;owned\u0007"}"#
        #expect(try health.run("import", "-", input: line + "\n").code == 0)
        #expect(try health.run("priority", "step-count", evil).code == 0)
        let outputs = try [["sources"], ["sources", "step-count"], ["priority", "step-count"],
                           ["query", "step-count", "--day", "2026-11-30", "--tz", "UTC"],
                           ["stats", "step-count", "--day", "2026-11-30", "--tz", "UTC", "--by-source"],
                           ["changes", "--since", "0"]].map { try health.run($0) }
        for result in outputs {
            #expect(result.code == 0, "\(result.error)")
            #expect(!result.output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "raw control character: \(result.output)")
            #expect(!result.output.split(separator: "\n").contains { $0.hasPrefix(" synced") }, "a forged line: \(result.output)")
        }
        #expect(outputs[0].output.contains(#"com.evil\e[2J\n synced 99999 minutes into /etc/passwd"#), "\(outputs[0].output)")
        #expect(outputs[3].output.contains(#"device=Dev\e]0;owned\x07"#), "\(outputs[3].output)")
        // JSON keeps the name exactly (escaped the JSON way), so nothing is lost.
        let exported = try health.run("export")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(exported.output.utf8)) as? [String: Any])
        #expect(object["source"] as? String == evil)
    }

    /// A band named with terminal escapes cannot repaint the terminal that `cat`s the CSV.
    @Test func csvExportWritesNoRawControlCharacters() throws {
        let evil = "Evil\u{1B}]0;pwn\u{07}\u{1B}[2J\u{9B}31m"
        let line = #"{"type":"heart-rate","value":60,"start":"2026-11-30T09:00:00Z","source":\#(JSON.quoted(evil)),"device":\#(JSON.quoted(evil + "\n"))}"#
        #expect(try health.run("import", "-", input: line + "\n").code == 0)
        let csv = try health.run("export", "--format", "csv").output
        #expect(!csv.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }, "\(csv.debugDescription)")
        #expect(csv.contains(#",Evil\e]0;pwn\x07\e[2J\u{9b}31m,"#), "\(csv)")
        #expect(csv.contains(#",Evil\e]0;pwn\x07\e[2J\u{9b}31m\n,"#), "\(csv)")
        #expect(csv.split(separator: "\n").count == 2)
    }

    @Test func csvExportNeutralisesFormulas() throws {
        var lines = ""
        for (index, source) in ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\tlead", "plain"].enumerated() {
            lines += #"{"type":"heart-rate","value":6\#(index),"start":"2026-11-30T09:0\#(index):00Z","source":\#(JSON.quoted(source))}"# + "\n"
        }
        #expect(try health.run("import", "-", input: lines).code == 0)
        let csv = try health.run("export", "--format", "csv").output.split(separator: "\n").dropFirst()
        let sources = csv.map { row in
            // The source is the sixth column; only the first source holds a quoted comma.
            row.hasPrefix("heart-rate") ? String(row) : ""
        }
        #expect(sources.contains { $0.contains(#",60,count/min,"'=HYPERLINK(""http://x"",""y"")","#) }, "\(csv)")
        #expect(sources.contains { $0.contains(",61,count/min,'+1+1,") })
        #expect(sources.contains { $0.contains(",62,count/min,'-2+3,") })
        #expect(sources.contains { $0.contains(",63,count/min,'@SUM(A1),") })
        // A tab is written escaped (`\t`), as every control character is, so it no longer leads.
        #expect(sources.contains { $0.contains(#",64,count/min,\tlead,"#) })
        #expect(sources.contains { $0.contains(",65,count/min,plain,") })
    }

    @Test func aWorldReadableStoreIsRefusedWithTheFix() throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: temp.path)
        let result = try health.run("import", "-", input: minuteSteps(count: 1, source: "com.example.app"))
        #expect(result.code == 1)
        #expect(result.error.contains("is accessible by group or others (mode 644); health data is private: run chmod 600 \(temp.path)"), "\(result.error)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temp.path)
    }

    @Test func exportedSamplesImportBackUnchanged() throws {
        #expect(try health.run("import", "-", input: minuteSteps(count: 3, source: "bandkit.band")).code == 0)
        #expect(try health.run("add", "body-mass", "160", "lb", "--start", "2026-11-30T07:00:00Z").code == 0)
        let exported = try health.run("export")
        #expect(exported.code == 0)
        let copy = try TemporaryStore()
        let imported = try HealthCommand(store: copy.path).run("import", "-", input: exported.output)
        #expect(imported.code == 0, "\(imported.error)")
        #expect(try HealthCommand(store: copy.path).run("export").output == exported.output)
        let mass = try copy.store.mostRecentSample(of: .bodyMass, as: .owner)
        #expect(mass?.quantity.value == 160 * 0.45359237)  // exported at full precision
        #expect(mass?.userEntered == true)
    }

    @Test func statsJSONHasOneObjectPerBucketAndPerSourceWithBySource() throws {
        #expect(try health.run("import", "-", input: minuteSteps(count: 90, source: "bandkit.band")).code == 0)
        #expect(try health.run("import", "-", input: minuteSteps(count: 30, source: "com.example.phone", steps: 50)).code == 0)
        let merged = try health.run("stats", "step-count", "--from", "2026-11-30T00:00:00Z", "--to", "2026-11-30T03:00:00Z",
                                    "--by", "hour", "--tz", "UTC", "--json")
        #expect(merged.code == 0)
        let buckets = try #require(try JSONSerialization.jsonObject(with: Data(merged.output.utf8)) as? [[String: Any]])
        #expect(buckets.count == 3)
        // Neither source records with a device, so the newer one (the phone) ranks first: its 30
        // minutes (1500) replace the band's, which fills the rest of the hour (30 × 10).
        #expect(buckets.map { $0["value"] as? Double } == [1800, 300, nil])
        #expect(buckets.allSatisfy { $0["unit"] as? String == "count" })

        let bySource = try health.run("stats", "step-count", "--from", "2026-11-30T00:00:00Z", "--to", "2026-11-30T01:00:00Z",
                                      "--tz", "UTC", "--by-source", "--json")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(bySource.output.utf8)) as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["source"] as? String }) == ["bandkit.band", "com.example.phone"])
    }

    @Test func theStoreCanBeNamedByEnvironment() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HealthCommand.binary)
        process.arguments = ["add", "height", "1.8", "m"]
        process.environment = ["BANDKIT_STORE": temp.path, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try temp.store.mostRecentSample(of: .height, as: .owner)?.quantity.value == 1.8)
    }

    @Test func grantsFromTheCommandLineGovernApps() throws {
        let band = AppIdentity(id: "bandkit.band", version: "0.1")
        #expect(try health.run("grant", "bandkit.band", "heart-rate", "--write").code == 0)
        try temp.store.write(as: band) {
            try $0.save(QuantitySample(type: .heartRate, quantity: Quantity(60, .countPerMinute), start: Date(), end: Date()))
        }
        #expect(try health.run("revoke", "bandkit.band", "heart-rate", "--write").code == 0)
        #expect(throws: HealthStoreError.self) {
            try temp.store.write(as: band) {
                try $0.save(QuantitySample(type: .heartRate, quantity: Quantity(61, .countPerMinute), start: Date(), end: Date()))
            }
        }
        #expect(try health.run("grant", "bandkit.band", "blood-type", "--write").code == 64)
    }
}
