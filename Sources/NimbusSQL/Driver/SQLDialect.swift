//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The SQL type a scalar is compared as: what a JSON value or a JSON array element is read as.
package enum SQLScalarKind: Sendable {
    case text
    case integer
    case real
}

/// Every difference between the SQL of the databases Nimbus runs on.
///
/// The store writes its statements once, in SQL both engines accept (`ON CONFLICT`,
/// `RETURNING`, row values, `?` placeholders, which the PostgreSQL driver numbers); whatever
/// differs is spelled here and nowhere else.
package enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The column type of binary data.
    package var blobType: String {
        switch self {
        case .sqlite: "BLOB"
        case .postgres: "BYTEA"
        }
    }

    /// The column type of a JSON document.
    ///
    /// Text on both engines: documents are written and read whole, as text, and only queries
    /// look inside them (through ``jsonScalar(column:path:as:)``).
    package var jsonType: String { "TEXT" }

    /// An expression for the scalar at `path` (a list of object keys) inside a JSON column, read
    /// as `kind`.
    ///
    /// Keys are field names, which the engine restricts to letters, digits, `_` and `.`; quotes
    /// are escaped all the same, so the literal can never end early.
    package func jsonScalar(column: String, path: [String], as kind: SQLScalarKind) -> String {
        switch self {
        case .sqlite:
            // json_extract already answers in the document's own type.
            let jsonPath = "$" + path.map { ".\"" + $0.replacing("\"", with: "") + "\"" }.joined()
            return "json_extract(\(column), '\(jsonPath.replacing("'", with: "''"))')"
        case .postgres:
            let elements = path.map { "\"" + $0.replacing("\"", with: "").replacing("'", with: "''") + "\"" }
            let pathLiteral = "'{\(elements.joined(separator: ","))}'"
            // A number is read only from a JSON number in range, anything else is NULL, never an
            // error: the same field name may hold text in another record type or container, and
            // an index on this expression (FieldIndex) spans them all. A cast that failed would
            // fail the index build, and every later write of such a record.
            let value = "(CAST(\(column) AS jsonb) #> \(pathLiteral))"
            switch kind {
            case .text:
                return "(CAST(\(column) AS jsonb) #>> \(pathLiteral))"
            case .integer:
                // Nested, not `AND`: only CASE fixes the order, and the range test casts.
                return """
                    (CASE WHEN jsonb_typeof(\(value)) = 'number' THEN (CASE WHEN CAST(\(value) AS NUMERIC) \
                    BETWEEN -9223372036854775808 AND 9223372036854775807 THEN CAST(\(value) AS BIGINT) END) END)
                    """
            case .real:
                return "(CASE WHEN jsonb_typeof(\(value)) = 'number' THEN CAST(\(value) AS DOUBLE PRECISION) END)"
            }
        }
    }

    /// The elements of the JSON array at `path` inside a JSON column, as a `FROM` item named
    /// `alias`, and the expression of one element read as `kind` (a reference's record name
    /// where `references`). A missing field, or one that is not an array, has no elements.
    package func jsonArrayElements(column: String, path: [String], alias: String, references: Bool, as kind: SQLScalarKind)
        -> (from: String, element: String)
    {
        switch self {
        case .sqlite:
            let jsonPath = "$" + path.map { ".\"" + $0.replacing("\"", with: "") + "\"" }.joined()
            let array = "json_extract(\(column), '\(jsonPath.replacing("'", with: "''"))')"
            // json_each of a scalar is that scalar: only arrays count.
            let from = "json_each(CASE WHEN json_type(\(array)) = 'array' THEN \(array) ELSE '[]' END) AS \(alias)"
            return (from, references ? "json_extract(\(alias).value, '$.recordName')" : "\(alias).value")
        case .postgres:
            let elements = path.map { "\"" + $0.replacing("\"", with: "").replacing("'", with: "''") + "\"" }
            let array = "(CAST(\(column) AS jsonb) #> '{\(elements.joined(separator: ","))}')"
            let from = "jsonb_array_elements(CASE WHEN jsonb_typeof(\(array)) = 'array' THEN \(array) ELSE '[]'::jsonb END) AS \(alias)(item)"
            return (from, references ? "(\(alias).item ->> 'recordName')" : Self.cast("(\(alias).item #>> '{}')", to: kind))
        }
    }

    /// The values of a JSON array bound to the placeholder, as a `FROM` item named `alias`, and
    /// the expression of one value read as `kind`.
    package func boundArrayValues(alias: String, as kind: SQLScalarKind) -> (from: String, value: String) {
        switch self {
        case .sqlite: ("json_each(?) AS \(alias)", "\(alias).value")
        case .postgres: ("\(Self.postgresListElements)(CAST(? AS jsonb)) AS \(alias)(item)", Self.cast("\(alias).item", to: kind))
        }
    }

    /// The bytes a `records` row's fields take: what storage quotas count. The same as the
    /// UTF-8 length of the `fields` text plus the sealed `encrypted_fields`.
    package var recordSize: String {
        switch self {
        case .sqlite: "(length(CAST(fields AS BLOB)) + COALESCE(length(encrypted_fields), 0))"
        case .postgres: "(octet_length(fields) + COALESCE(octet_length(encrypted_fields), 0))"
        }
    }

    /// A statement answering the bytes the store's data takes: SQLite's file (its pages), or on
    /// PostgreSQL the tables of the store's schema with their indexes and TOAST.
    package var storageBytesStatement: String {
        switch self {
        case .sqlite: "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
        case .postgres:
            """
            SELECT CAST(COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS BIGINT) FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'
            """
        }
    }

    /// A test that `column` is one of the values of a list bound to the placeholder
    /// (``SQLValue/textList(_:)``, ``SQLValue/integerList(_:)``).
    ///
    /// On PostgreSQL the list is an array, which the planner sees whole when it plans the
    /// statement (lists are never prepared, `PostgresStatementCache`): it estimates the rows
    /// from the values, and a list it must test row by row it tests through a hash table, where
    /// a list read from a JSON array (``isMember(_:of:)``) is compared with every row it tests
    /// (BENCHMARKS.md, issue 30's third step).
    package func isAmong(_ column: String) -> String {
        switch self {
        case .sqlite: "\(column) IN (SELECT value FROM json_each(?))"
        case .postgres: "\(column) = ANY(?)"
        }
    }

    /// A test that `column` is one of the values of a JSON array bound to the placeholder: a
    /// query's list of values, read as `kind`.
    package func isMember(_ column: String, of kind: SQLScalarKind = .text) -> String {
        switch self {
        case .sqlite:
            return "\(column) IN (SELECT value FROM json_each(?))"
        case .postgres:
            let element = Self.cast("value", to: kind)
            return "\(column) IN (SELECT \(element) FROM \(Self.postgresListElements)(CAST(? AS jsonb)))"
        }
    }

    /// The function ``isMember(_:of:)`` and ``boundArrayValues(alias:as:)`` read a bound JSON
    /// array with on PostgreSQL.
    private static let postgresListElements = "jsonb_array_elements_text"

    /// A statement listing the usable indexes whose names begin with the bound prefix: on
    /// PostgreSQL, in the current schema and valid (a concurrent build that failed leaves an
    /// invalid one behind).
    package var indexNamesWithPrefix: String {
        switch self {
        case .sqlite:
            "SELECT name FROM sqlite_master WHERE type = 'index' AND substr(name, 1, length(?1)) = ?1"
        case .postgres:
            """
            SELECT pg_class.relname FROM pg_index JOIN pg_class ON pg_class.oid = pg_index.indexrelid
            WHERE pg_class.relnamespace = CAST(current_schema() AS regnamespace) AND pg_index.indisvalid
                AND substr(pg_class.relname, 1, length($1)) = $1
            """
        }
    }

    /// The larger of two expressions.
    package func greatest(_ first: String, _ second: String) -> String {
        switch self {
        case .sqlite: "MAX(\(first), \(second))"
        case .postgres: "GREATEST(\(first), \(second))"
        }
    }

    /// The smaller of two expressions. PostgreSQL's `least` skips a `NULL` argument where
    /// SQLite's `min` answers `NULL`: callers that may see one decide it before.
    package func smaller(_ first: String, _ second: String) -> String {
        switch self {
        case .sqlite: "min(\(first), \(second))"
        case .postgres: "least(\(first), \(second))"
        }
    }

    /// A condition that a record's search document holds the tokens (all of them, or any), and
    /// the values it binds. SQLite: the rows FTS5's `record_search` finds, less those with a
    /// change still in the index's queue (see `SearchIndexQueue`), plus those of the queued rows
    /// whose search document (the tokens separated by single spaces) holds the tokens; one list,
    /// built once per statement, so each record costs one lookup in it, as with the index alone.
    /// PostgreSQL: text search over the expression and predicate its index is built on
    /// (migration 15), so the planner uses it.
    package func searchMatch(_ tokens: [String], all: Bool) -> (condition: String, binds: [SQLValue]) {
        switch self {
        case .sqlite:
            let inDocument = Array(repeating: "instr(' ' || queued.search_document || ' ', ?) > 0", count: tokens.count)
            let condition = """
                rowid IN (SELECT rowid FROM record_search WHERE record_search MATCH ? \
                EXCEPT SELECT record_rowid FROM search_index_queue \
                UNION SELECT queued.rowid FROM search_index_queue JOIN records queued ON queued.rowid = search_index_queue.record_rowid \
                WHERE \(inDocument.joined(separator: all ? " AND " : " OR ")))
                """
            let match = SQLValue.text(tokens.map { "\"\($0)\"" }.joined(separator: all ? " " : " OR "))
            return (condition, [match] + tokens.map { .text(" \($0) ") })
        case .postgres:
            return (
                "(search_document IS NOT NULL AND array_to_tsvector(string_to_array(search_document, ' ')) @@ CAST(? AS tsquery))",
                [.text(tokens.map { "'\($0)'" }.joined(separator: all ? " & " : " | "))]
            )
        }
    }

    /// Whether a statement may change rows in a `WITH` clause and use what it returned
    /// (PostgreSQL's data-modifying CTEs), so two dependent writes take one round trip.
    package var hasDataModifyingCTEs: Bool { self == .postgres }

    /// Whether other server instances share the database and hear of new inbox entries through
    /// it (PostgreSQL's `NOTIFY`, delivered on commit).
    package var announcesAcrossInstances: Bool { self == .postgres }

    /// What a `SELECT` appends to lock its rows for the transaction and pass over rows another
    /// transaction holds: PostgreSQL's `FOR UPDATE SKIP LOCKED`. SQLite has one writer at a
    /// time, so it needs nothing.
    package var lockSkippingLocked: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE SKIP LOCKED"
        }
    }

    /// The current time in milliseconds since 1970, as an SQL expression.
    package var currentTimeMilliseconds: String {
        switch self {
        case .sqlite: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
        case .postgres: "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
        }
    }

    /// A text expression converted to `kind` (PostgreSQL only: SQLite compares by value).
    private static func cast(_ text: String, to kind: SQLScalarKind) -> String {
        switch kind {
        case .text: text
        case .integer: "CAST(\(text) AS BIGINT)"
        case .real: "CAST(\(text) AS DOUBLE PRECISION)"
        }
    }
}
