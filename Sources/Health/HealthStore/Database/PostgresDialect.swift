import FoundationEssentials

/// The store's shared SQL, as PostgreSQL reads it.
///
/// The store writes SQL once, in the subset both engines share. Three spellings differ and are
/// rewritten here, mechanically, once per prepared statement, in one pass that knows quotes and
/// comments:
/// - parameters: SQLite's `?` and `?N` become `$N` (a bare `?` takes the next number, as in SQLite);
/// - ` INDEXED BY name`, SQLite's index hint, is dropped (PostgreSQL's planner chooses);
/// - `json_each(P)`, which expands a JSON array parameter into rows of `value`, becomes
///   `json_array_elements_text(CAST((P) AS json)) AS json_each(value)`; `P` ends at its matching
///   parenthesis, so a nested call or a quoted `)` stays inside, and is closed in parentheses of
///   its own, so nothing it ends with reads on into ` AS json` (found by fuzz/sqlrewriter:
///   `json_each(x INDEXED BY)` came out as a hint `INDEXED BY AS`).
/// Quoted strings ('…'), quoted identifiers ("…") and line comments (-- …) are copied untouched.
/// What PostgreSQL would read differently is refused (``Translation/problem``), not passed on: a
/// parameter number outside 1…65,535 (the protocol counts parameters in 16 bits, and a statement's
/// parameter list is allocated from its highest number) and `$` outside quotes (SQLite's named
/// parameters, PostgreSQL's own numbered ones and dollar quoting; the store's SQL has none).
/// Found by fuzz/sqlrewriter: the hint removal and the `json_each` rewrite used to work on the raw
/// text, rewriting quoted values and cutting `P` at the first `)`.
package enum PostgresDialect {
    package struct Translation: Equatable {
        package var sql: String
        /// The highest parameter number: how many parameters the statement takes.
        package var parameterCount: Int
        /// The numbers that appear in the SQL. SQLite accepts gaps (a query that leaves out a
        /// condition leaves out its parameters); PostgreSQL must be told a type for each
        /// missing one, which is only ever NULL.
        package var used: Set<Int> = []
        /// Why PostgreSQL cannot be given the statement (nil: it can).
        package var problem: String? = nil
    }

    /// PostgreSQL's limit on a statement's parameters (a 16-bit count in the protocol).
    package static let maximumParameter = 65_535

    package static func translate(_ sql: String) -> Translation {
        var rewriter = Rewriter(sql, translating: true)
        rewriter.run()
        return Translation(sql: String(rewriter.out), parameterCount: rewriter.problem == nil ? rewriter.highest : 0,
                           used: rewriter.problem == nil ? rewriter.used : [], problem: rewriter.problem)
    }

    /// `sql` without SQLite's `INDEXED BY` hints (also used on a read-only SQLite store read
    /// through views: ``SQLiteEngine/dropsIndexHints``); parameters and `json_each` are left as they are.
    package static func removingIndexHints(_ sql: String) -> String {
        var rewriter = Rewriter(sql, translating: false)
        rewriter.run()
        return String(rewriter.out)
    }

    /// One pass over the statement's scalars.
    private struct Rewriter {
        let scalars: [Unicode.Scalar]
        /// false: only drop index hints (SQLite reading through views).
        let translating: Bool
        var index = 0
        var out = String.UnicodeScalarView()
        var highest = 0
        var used: Set<Int> = []
        var problem: String?
        /// Parenthesis depth, and the depths at which an open `json_each(` argument closes.
        var depth = 0
        var jsonEachClosings: [Int] = []

        static let hint = Array(" INDEXED BY ".unicodeScalars)
        static let jsonEach = Array("json_each(".unicodeScalars)
        static let jsonEachOpening = "json_array_elements_text(CAST(("
        static let jsonEachClosing = ") AS json)) AS json_each(value)"

        init(_ sql: String, translating: Bool) {
            scalars = Array(sql.unicodeScalars)
            self.translating = translating
            out.reserveCapacity(scalars.count + 16)
        }

        func starts(with word: [Unicode.Scalar], at position: Int) -> Bool {
            guard position + word.count <= scalars.count else { return false }
            for offset in word.indices where scalars[position + offset] != word[offset] { return false }
            return true
        }

        static func isNamePart(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
        }

        mutating func run() {
            while index < scalars.count {
                let c = scalars[index]
                if c == "'" || c == "\"" {
                    copyQuoted(c)
                } else if c == "-", index + 1 < scalars.count, scalars[index + 1] == "-" {
                    while index < scalars.count, scalars[index] != "\n" { out.append(scalars[index]); index += 1 }
                } else if c == " ", starts(with: Self.hint, at: index) {
                    dropHint()
                } else if translating, c == "?" {
                    parameter()
                } else if translating, c == "$" {
                    if problem == nil { problem = "'$' outside quotes at offset \(index) is not part of the shared SQL" }
                    out.append(c)
                    index += 1
                } else if translating, c == "j", index == 0 || !Self.isNamePart(scalars[index - 1]),
                          starts(with: Self.jsonEach, at: index) {
                    out.append(contentsOf: Self.jsonEachOpening.unicodeScalars)
                    index += Self.jsonEach.count
                    depth += 1
                    jsonEachClosings.append(depth)
                } else if c == "(" {
                    depth += 1
                    out.append(c)
                    index += 1
                } else if c == ")" {
                    if jsonEachClosings.last == depth {
                        jsonEachClosings.removeLast()
                        out.append(contentsOf: Self.jsonEachClosing.unicodeScalars)
                    } else {
                        out.append(c)
                    }
                    depth -= 1
                    index += 1
                } else {
                    out.append(c)
                    index += 1
                }
            }
        }

        /// Drops the hint at `index` and its index name without joining its neighbours into
        /// something new. Found by fuzz/sqlrewriter: `x INDEXED INDEXED BY y BY j` left
        /// `x INDEXED BY j` (a new hint), and `a - INDEXED BY y-b` left `a --b` (a comment that
        /// hid the rest of the line). So: while what was written before it and what follows
        /// spell another hint, that one goes too (each join is looked for at most 11 scalars
        /// back: the pass stays linear); then a space keeps two characters that were apart
        /// from touching, so no new token forms (`--`, `/*`, `<>`, `||`, …).
        mutating func dropHint() {
            var written = 0   // scalars of the hint already in `out` (removed by a join)
            while true {
                index += Self.hint.count - written
                while index < scalars.count, Self.isNamePart(scalars[index]) { index += 1 }
                guard let joined = joinedHintPrefix() else { break }
                out.removeLast(joined)
                written = joined
            }
            if let before = out.last, !Self.isSpace(before), index < scalars.count, !Self.isSpace(scalars[index]) {
                out.append(" ")
            }
        }

        static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r"
        }

        /// The length of the longest tail of `out` that, with the text at `index`, spells a hint.
        /// The hint holds no quote, `$`, `)` or line end, so such a tail is always plain text
        /// copied as it was.
        func joinedHintPrefix() -> Int? {
            let tail = Array(out.suffix(Self.hint.count - 1))
            for length in stride(from: tail.count, through: 1, by: -1)
            where tail[(tail.count - length)...].elementsEqual(Self.hint[..<length]) {
                let rest = Self.hint[length...]
                guard index + rest.count <= scalars.count else { continue }
                if scalars[index..<(index + rest.count)].elementsEqual(rest) { return length }
            }
            return nil
        }

        /// Copies a quoted piece to its closing quote (a doubled quote inside reads as two pieces
        /// back to back, which copies the same characters).
        mutating func copyQuoted(_ quote: Unicode.Scalar) {
            out.append(quote)
            index += 1
            while index < scalars.count {
                let d = scalars[index]
                out.append(d)
                index += 1
                if d == quote { return }
            }
        }

        /// `?` or `?N` → `$N`.
        mutating func parameter() {
            let start = index
            index += 1
            var digits = ""
            while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                digits.unicodeScalars.append(scalars[index])
                index += 1
            }
            let number: Int
            if digits.isEmpty {
                number = highest + 1
            } else if digits.count <= 5, let value = Int(digits) {
                number = value
            } else {
                number = Int.max
            }
            guard (1...maximumParameter).contains(number) else {
                if problem == nil { problem = "parameter ?\(digits) at offset \(start) is outside 1…\(maximumParameter)" }
                out.append(contentsOf: "$\(digits)".unicodeScalars)
                return
            }
            highest = max(highest, number)
            used.insert(number)
            out.append(contentsOf: "$\(number)".unicodeScalars)
        }
    }
}
