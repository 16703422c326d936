// libFuzzer harness for the SQL rewriter (HealthStore `PostgresDialect`): the store's SQL, written
// once in the subset SQLite and PostgreSQL share, as PostgreSQL reads it (`?`/`?N` → `$N`, SQLite's
// `INDEXED BY` hints dropped, `json_each(P)` → `json_array_elements_text(CAST(P AS json))`).
// The input is arbitrary text (invalid UTF-8 repaired) and the same text spliced into a statement
// of the store's shape. Properties checked on every input:
//  1. no trap, and a bounded cost: parameter numbers are refused outside 1…65,535 (the
//     protocol's limit; a statement's parameter list is allocated from the highest number), and
//     so is `$` outside quotes (SQLite's named parameters, PostgreSQL's own $N and dollar quoting);
//  2. quoted strings ('…') and quoted identifiers ("…") and line comments (-- …) come out
//     untouched, in order: values and names are never rewritten;
//  3. outside them, no `?` is left, and the `$N` written are exactly the parameters counted:
//     one `$N` per `?`, `used` holds every N, `parameterCount` is the highest;
//  4. no `INDEXED BY` hint is left outside quotes and comments;
//  5. the rewrite is deterministic, and the SQLite-side hint removal (`removingIndexHints`)
//     leaves quotes and comments untouched too.
import HealthStore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    check(text)
    check("SELECT anchor FROM sample INDEXED BY sample_by_type_time WHERE type_id = ? AND uuid IN (SELECT value FROM json_each(?2)) AND x = " + text)
    return 0
}

func check(_ sql: String) {
    let translation = PostgresDialect.translate(sql)
    guard PostgresDialect.translate(sql) == translation else { fatalError("not deterministic") }
    if let problem = translation.problem {
        guard problem.contains("65535") || problem.contains("'$' outside quotes") else { fatalError("unexpected refusal: \(problem)") }
        guard translation.parameterCount == 0, translation.used.isEmpty else { fatalError("a refused statement counts parameters") }
        return
    }
    let input = Lexed(sql)
    let output = Lexed(translation.sql)
    guard input.quoted == output.quoted else {
        fatalError("quoted text or comments changed: \(input.quoted) became \(output.quoted)\n in: \(sql.debugDescription)\nout: \(translation.sql.debugDescription)")
    }
    guard output.questionMarks == 0 else { fatalError("a ? is left: \(translation.sql.debugDescription)") }
    guard output.dollars.count == input.questionMarks else {
        fatalError("\(input.questionMarks) parameters became \(output.dollars.count) $N: \(translation.sql.debugDescription)")
    }
    guard Set(output.dollars) == translation.used else { fatalError("used \(translation.used) but the SQL has \(output.dollars)") }
    guard translation.parameterCount == (translation.used.max() ?? 0), translation.parameterCount <= 65_535,
          !translation.used.contains(0) else {
        fatalError("parameter count \(translation.parameterCount) for \(translation.used)")
    }
    guard !output.plain.contains(" INDEXED BY ") else { fatalError("an index hint is left: \(translation.sql.debugDescription)") }
    let hintless = PostgresDialect.removingIndexHints(sql)
    guard Lexed(hintless).quoted == input.quoted else { fatalError("hint removal changed quoted text: \(hintless.debugDescription)") }
}

/// The text split as the rewriter's dialect reads it: quoted pieces and line comments (kept whole,
/// in order), and the plain text between them with its `?` and `$N`.
struct Lexed {
    var quoted: [String] = []
    var plain = ""
    var questionMarks = 0
    var dollars: [Int] = []

    init(_ sql: String) {
        var scalars = sql.unicodeScalars[...]
        while let c = scalars.first {
            scalars.removeFirst()
            if c == "'" || c == "\"" {
                var piece = String(c)
                while let d = scalars.first {
                    scalars.removeFirst()
                    piece.unicodeScalars.append(d)
                    if d == c { break }
                }
                quoted.append(piece)
                plain += "\u{0}"  // a stand-in that cannot form " INDEXED BY " with its neighbours
            } else if c == "-", scalars.first == "-" {
                var piece = "-"
                while let d = scalars.first, d != "\n" {
                    scalars.removeFirst()
                    piece.unicodeScalars.append(d)
                }
                quoted.append(piece)
                plain += "\u{0}"  // a stand-in that cannot form " INDEXED BY " with its neighbours
            } else if c == "?" {
                questionMarks += 1
                plain.unicodeScalars.append(c)
            } else if c == "$" {
                var digits = ""
                while let d = scalars.first, ("0"..."9").contains(d) {
                    scalars.removeFirst()
                    digits.unicodeScalars.append(d)
                }
                if let number = Int(digits) { dollars.append(number) }
                plain += "$" + digits
            } else {
                plain.unicodeScalars.append(c)
            }
        }
    }
}
