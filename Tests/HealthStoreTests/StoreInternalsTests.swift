import Foundation
import Testing
@testable import HealthStore

/// The small pieces HealthStore has of its own instead of classic Foundation's.
@Suite struct StoreInternalsTests {
    @Test func metadataWithControlCharactersRoundTripsThroughItsJSON() {
        let metadata = ["bell": "a\u{07}b", "unit separator": "\u{1F}", "quote": "\"\\", "text": "café 🚲"]
        let text = MetadataCoding.encode(metadata)
        #expect(text == #"{"bell":"a\u0007b","quote":"\"\\","text":"café 🚲","unit separator":"\u001f"}"#)
        #expect(MetadataCoding.decode(text) == metadata)
        // What JSONSerialization read back before: the same dictionary.
        let foundation = try? JSONSerialization.jsonObject(with: Data(text!.utf8)) as? [String: String]
        #expect(foundation == metadata)
    }

    @Test func metadataValuesOtherThanStringsAreKeptAsTheirTextAndNonObjectsAreNoMetadata() {
        #expect(MetadataCoding.decode(#"{"count":3,"ratio":0.5,"on":true,"nothing":null,"list":[1],"name":"x"}"#)
                == ["count": "3", "ratio": "0.5", "on": "true", "name": "x"])
        #expect(MetadataCoding.decode("[1,2]") == [:])
        #expect(MetadataCoding.decode("not json") == [:])
        #expect(MetadataCoding.decode(nil) == [:])
    }

    @Test(arguments: [("/a/b/c.sqlite", "/a/b"), ("/c.sqlite", "/"), ("c.sqlite", ""), ("a/b/", "a"), ("/", "/"), ("", "")])
    func directoryOfAPathIsWhatNSStringCallsDeletingTheLastComponent(_ path: String, _ directory: String) {
        #expect(StoreFile.directory(of: path) == directory)
        #expect((path as NSString).deletingLastPathComponent == directory)
    }

    @Test func recursiveLockCanBeTakenAgainByItsHolder() async {
        let lock = RecursiveLock()
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<1000 {
                        lock.lock()
                        lock.lock()
                        counter.value += 1
                        lock.unlock()
                        lock.unlock()
                    }
                }
            }
        }
        #expect(counter.value == 4000)
    }
}

private final class Counter: @unchecked Sendable {
    var value = 0
}
