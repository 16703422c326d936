import AppleHealth
import Foundation
import HealthModel
import Testing

/// Malformed and hostile XML, pieces of any size, and truncation at every offset.
@Suite struct ParserSafetyTests {
    static let sample = Fragment.document("""
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1980-02-29" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeOPositive"/>
        \(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "100", device: Fragment.watchDevice, children: "  <MetadataEntry key=\"k\" value=\"v &amp; w\"/>\n"))\
        \(Fragment.record("HKCategoryTypeIdentifierSleepAnalysis", value: "HKCategoryValueSleepAnalysisAwake", unit: nil))\
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="Watch" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:30:00 -0700">
          <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:30:00 -0700" sum="300" unit="kcal"/>
         </Workout>
        """)

    @Test func malformedXMLNamesLineAndColumn() throws {
        let xml = Fragment.document(" <Record type=\"HKQuantityTypeIdentifierStepCount\" value=\"1\"\n  <oops/>\n")
        let error = try #require(Parsed.error(xml))
        #expect(error.kind == .malformedXML)
        #expect(error.place == "line 11, column 3")  // the "<" of <oops/>, on the line after the unclosed tag
        #expect(error.message.contains("malformed XML"))
    }

    @Test func entityDeclarationsAreRefusedSoNoBillionLaughs() throws {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE HealthData [
            <!ENTITY a "aaaaaaaaaa">
            <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
            ]>
            <HealthData locale="&b;"/>
            """
        let error = try #require(Parsed.error(bomb))
        #expect(error.kind == .unsafeXML)
        #expect(error.message.contains("entity declaration 'a' refused"))
    }

    @Test func externalEntitiesAreRefused() throws {
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE HealthData [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
            <HealthData locale="en">&secret;</HealthData>
            """
        #expect(Parsed.error(external)?.kind == .unsafeXML)
        let externalSubset = """
            <?xml version="1.0"?>
            <!DOCTYPE HealthData SYSTEM "http://example.com/health.dtd">
            <HealthData locale="en"/>
            """
        // The external subset is never fetched: the document parses as if it had none.
        #expect(Parsed.error(externalSubset) == nil)
    }

    @Test func anotherRootIsNotAnExport() throws {
        #expect(Parsed.error("<?xml version=\"1.0\"?><html><body/></html>")?.message.contains("not an Apple Health export.xml") == true)
    }

    @Test func piecesOfAnySizeGiveTheSameItems() throws {
        let whole = try Parsed(Self.sample)
        #expect(whole.items.count == 4)
        for size in [1, 2, 7, 64, 1000] {
            let pieces = try Parsed(Self.sample, pieceSize: size)
            #expect(pieces.quantities.map(\.syncIdentifier) == whole.quantities.map(\.syncIdentifier), "piece size \(size)")
            #expect(pieces.categories.map(\.value) == whole.categories.map(\.value))
            #expect(pieces.workouts.map(\.id) == whole.workouts.map(\.id))
            #expect(pieces.characteristics == whole.characteristics)
        }
    }

    @Test func truncationAtEveryOffsetIsAnErrorNeverACrashOrSilentSuccess() throws {
        let bytes = Array(Self.sample.utf8)
        // The last offsets only cut the final newline after </HealthData>: still a whole document.
        let complete = bytes.lastIndex(of: UInt8(ascii: ">"))!
        for length in 0...complete {
            let prefix = String(decoding: bytes[0..<length], as: UTF8.self)
            let error = Parsed.error(prefix)
            #expect(error != nil, "a document cut at byte \(length) parsed")
        }
    }

    @Test func tooManyMetadataEntriesAreRefused() throws {
        let children = (0..<600).map { "  <MetadataEntry key=\"k\($0)\" value=\"v\"/>\n" }.joined()
        let error = Parsed.error(Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "1", children: children)))
        #expect(error?.kind == .tooLarge)
    }
}
