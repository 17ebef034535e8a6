//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import PostgresNIO

/// One run of a statement from ``PostgresStatementCache``, through postgres-nio's prepared
/// statements: the driver prepares it on the connection the first time the name is used there
/// (in the same round trip as the run), and runs it by name after.
///
/// postgres-nio names a prepared statement, and gives its text, with static properties, made for
/// statements known when the program is built; the store's are built at run time. So the name
/// and text are a task-local value, bound around the run: postgres-nio reads them in
/// `PostgresConnection.execute(_:logger:)`, on the caller's task, before it sends anything.
/// Every PostgreSQL test runs through here, so a driver that read them elsewhere would fail them.
struct PostgresNamedStatement: PostgresPreparedStatement {
    typealias Row = SQLRow

    @TaskLocal static var current = PostgresStatementCache.Prepared(name: "", sql: "")

    static var name: String { current.name }
    static var sql: String { current.sql }

    /// The values, whose types (as for an unnamed statement) become the parameters' types when
    /// the statement is prepared.
    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> SQLRow {
        SQLRow(values: try row.map(PostgresSQLConnection.value(of:)))
    }

    /// Runs `prepared` with `bindings` on `connection` and returns its rows.
    static func run(
        _ prepared: PostgresStatementCache.Prepared,
        _ bindings: PostgresBindings,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> [SQLRow] {
        try await $current.withValue(prepared) {
            var rows: [SQLRow] = []
            for try await row in try await connection.execute(PostgresNamedStatement(bindings: bindings), logger: logger) {
                rows.append(row)
            }
            return rows
        }
    }
}
