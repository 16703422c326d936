import Foundation
import Testing
@testable import BandReader

/// A malformed keystore is reported with the place its JSON breaks, not only "not valid JSON".
struct JSONSyntaxLocationTests {
    func place(_ text: String) -> String? { JSONSyntaxLocation.firstError(in: Array(text.utf8))?.description }

    @Test func validJSONHasNoErrorPlace() {
        for text in ["{}", " [1, -2.5e+3, \"a\\u00e9\\n\", true, false, null, {\"k\": []}] \n", "\"x\"", "0"] {
            #expect(place(text) == nil, "\(text)")
        }
    }

    @Test func theFirstBreakIsNamedByLineAndColumn() {
        #expect(place("{\"version\": 1,\n  \"bands\": [\n  {\"address\": \"sim:/x\", \n") == "line 4, column 1 (byte 53)")
        #expect(place("{\"a\": 1,}") == "line 1, column 9 (byte 8)")
        #expect(place("{\"a\": tru}") == "line 1, column 10 (byte 9)")
        #expect(place("[1 2]") == "line 1, column 4 (byte 3)")
        #expect(place("{\"a\": \"x\ty\"}") == "line 1, column 9 (byte 8)", "a raw tab in a string")
        #expect(place("{} x") == "line 1, column 4 (byte 3)", "text after the value")
        #expect(place("") == "line 1, column 1 (byte 0)")
        #expect(place("[\"\\q\"]") == "line 1, column 4 (byte 3)", "the escape letter that is not one")
        #expect(place("[1.]") == "line 1, column 4 (byte 3)", "a fraction needs digits")
    }

    @Test func deepNestingIsRefusedNotRecursedInto() {
        #expect(place(String(repeating: "[", count: 100_000)) == "line 1, column 513 (byte 512)")
    }

    @Test func theKeystoreNamesTheFileAndThePlace() {
        let text = "{\"version\": 1, \"bands\": [\n  {\"address\": \"sim:/x\",,}\n]}\n"
        #expect(throws: KeystoreError(path: "/k/keys.json", reason: "is not valid JSON at line 2, column 24 (byte 49)")) {
            try Keystore.decode(Data(text.utf8), path: "/k/keys.json")
        }
    }
}
