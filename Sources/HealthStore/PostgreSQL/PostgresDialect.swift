import FoundationEssentials

/// The store's shared SQL, as PostgreSQL reads it.
///
/// The store writes SQL once, in the subset both engines share. Three spellings differ and are
/// rewritten here, mechanically, once per prepared statement:
/// - parameters: SQLite's `?` and `?N` become `$N` (a bare `?` takes the next number, as in SQLite);
/// - `INDEXED BY name`, SQLite's index hint, is dropped (PostgreSQL's planner chooses);
/// - `json_each(P)`, which expands a JSON array parameter into rows of `value`, becomes
///   `json_array_elements_text(CAST(P AS json)) AS json_each(value)`.
/// Quoted strings and identifiers are copied untouched.
enum PostgresDialect {
    struct Translation: Equatable {
        var sql: String
        /// The highest parameter number: how many parameters the statement takes.
        var parameterCount: Int
        /// The numbers that appear in the SQL. SQLite accepts gaps (a query that leaves out a
        /// condition leaves out its parameters); PostgreSQL must be told a type for each
        /// missing one, which is only ever NULL.
        var used: Set<Int> = []
    }

    static func translate(_ sql: String) -> Translation {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var highest = 0
        var used: Set<Int> = []
        var scalars = sql.unicodeScalars[...]
        while let c = scalars.first {
            scalars.removeFirst()
            if c == "'" || c == "\"" {
                out.unicodeScalars.append(c)
                while let d = scalars.first {  // a doubled quote inside is copied as two characters
                    scalars.removeFirst()
                    out.unicodeScalars.append(d)
                    if d == c { break }
                }
            } else if c == "-", scalars.first == "-" {  // a comment runs to the end of the line
                out.unicodeScalars.append(c)
                while let d = scalars.first, d != "\n" {
                    scalars.removeFirst()
                    out.unicodeScalars.append(d)
                }
            } else if c == "?" {
                var digits = ""
                while let d = scalars.first, ("0"..."9").contains(d) {
                    scalars.removeFirst()
                    digits.unicodeScalars.append(d)
                }
                let number = digits.isEmpty ? highest + 1 : Int(digits) ?? 0
                highest = max(highest, number)
                used.insert(number)
                out += "$\(number)"
            } else {
                out.unicodeScalars.append(c)
            }
        }
        out = removingIndexHints(out)
        out = replacingJSONEach(out)
        return Translation(sql: out, parameterCount: highest, used: used)
    }

    /// `sql` without SQLite's `INDEXED BY` hints (also used on a read-only SQLite store read
    /// through views: ``SQLiteEngine/dropsIndexHints``).
    static func removingIndexHints(_ sql: String) -> String {
        var text = sql
        while let hint = text.firstRange(of: " INDEXED BY ") {
            var end = hint.upperBound
            while end < text.endIndex, text[end].isLetter || text[end].isNumber || text[end] == "_" { end = text.index(after: end) }
            text.removeSubrange(hint.lowerBound..<end)
        }
        return text
    }

    private static func replacingJSONEach(_ sql: String) -> String {
        var text = sql
        var searchFrom = text.startIndex
        while let call = text[searchFrom...].firstRange(of: "json_each("),
              let close = text[call.upperBound...].firstIndex(of: ")") {
            let argument = text[call.upperBound..<close]
            let replacement = "json_array_elements_text(CAST(\(argument) AS json)) AS json_each(value)"
            text.replaceSubrange(call.lowerBound...close, with: replacement)
            searchFrom = text.index(call.lowerBound, offsetBy: replacement.count)
        }
        return text
    }
}
