/// Another program's SQLite file (a Gadgetbridge export), opened read-only through the SQLite
/// the store already links: nothing in it is ever written, locked for writing or migrated.
///
/// Only this class and the store's engine touch SQLite; importers see tables, column names and
/// rows of integers and text.
public final class ForeignSQLiteFile {
    private let engine: SQLiteEngine
    public let path: String

    /// The 16 bytes every SQLite 3 database file begins with.
    public static let header: [UInt8] = Array("SQLite format 3\u{0}".utf8)

    public init(path: String) throws {
        self.path = path
        switch SQLiteEngine.open(path: path, create: false, readOnly: true) {
        case .success(let engine): self.engine = engine
        case .failure(let error): throw HealthStoreError.database(error)
        }
        // A damaged or non-database file fails here rather than half-way through an import.
        _ = try tableNames()
    }

    /// The file's tables (not views, not SQLite's own), in name order.
    public func tableNames() throws -> [String] {
        var names: [String] = []
        try forEachRow("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") { row in
            if let name = row.text(0) { names.append(name) }
        }
        return names
    }

    /// `table`'s column names, upper-cased (Gadgetbridge's generator writes them so; older
    /// files and hand-made ones may not).
    public func columnNames(_ table: String) throws -> [String] {
        var names: [String] = []
        try forEachRow("SELECT name FROM pragma_table_info(?)", bind: [.text(table)]) { row in
            if let name = row.text(0) { names.append(name.uppercased()) }
        }
        return names
    }

    public enum Parameter {
        case integer(Int64)
        case text(String)
    }

    /// One result row, valid only inside the callback.
    public struct Row {
        fileprivate let statement: SQLiteStatement
        public func int64(_ column: Int) -> Int64 { statement.int64(Int32(column)) }
        public func isNull(_ column: Int) -> Bool { statement.isNull(Int32(column)) }
        public func text(_ column: Int) -> String? { statement.text(Int32(column)) }
        /// The column's value as SQLite stores it is an integer (not text, real, blob or NULL).
        public func isInteger(_ column: Int) -> Bool { statement.isInteger(Int32(column)) }
    }

    /// Runs `sql` (a SELECT) and calls `body` with each row, one at a time: memory stays flat
    /// however many rows the table has.
    public func forEachRow(_ sql: String, bind parameters: [Parameter] = [],
                           _ body: (Row) throws -> Void) throws {
        let statement: SQLiteStatement
        switch engine.prepare(sql) {
        case .success(let prepared): statement = prepared as! SQLiteStatement
        case .failure(let error): throw HealthStoreError.database(error)
        }
        for (index, parameter) in parameters.enumerated() {
            switch parameter {
            case .integer(let value): statement.bind(Int32(index + 1), int64: value)
            case .text(let value): statement.bind(Int32(index + 1), text: value)
            }
        }
        let row = Row(statement: statement)
        while true {
            switch statement.step() {
            case .success(true):
                try body(row)
            case .success(false): return
            case .failure(let error): throw HealthStoreError.database(error)
            }
        }
    }
}
