//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A database connection that runs statements; the store's SQL is written against this.
///
/// Statements use `?` placeholders; a driver whose database spells them otherwise rewrites them.
package protocol SQLConnection {
    /// Runs one statement, which may reuse its plan, and returns every row it produced.
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]

    /// Runs one statement and returns every row it produced.
    ///
    /// - Parameter reusingPlan: whether the database may plan the statement once and reuse
    ///   the plan for other values (PostgreSQL's prepared statements). `false` for a statement
    ///   shaped by a request (a record query), whose best plan depends on the values bound.
    func query(_ sql: String, _ binds: [SQLValue], reusingPlan: Bool) async throws -> [SQLRow]

    /// Sends a statement whose answer the caller does not need to go on, in a write transaction.
    ///
    /// A driver whose every statement is a round trip (PostgreSQL) sends it and returns: the
    /// statements sent after it still run after it, and the transaction waits for it with its
    /// `COMMIT`, rather than once per statement. Where it fails, the transaction fails with its
    /// error and commits nothing. Others run it before returning. Nothing reads its rows, so a
    /// statement whose outcome could be wrong must fail by itself (an error raised in SQL).
    func send(_ statement: SQLStatement) async throws
}

extension SQLConnection {
    /// For a database that plans a statement for every value it runs with (SQLite).
    package func query(_ sql: String, _ binds: [SQLValue], reusingPlan: Bool) async throws -> [SQLRow] {
        try await query(sql, binds)
    }

    /// Runs the statement before returning.
    package func send(_ statement: SQLStatement) async throws {
        _ = try await query(statement.sql, statement.binds)
    }

    /// Runs one statement, ignoring any rows.
    package func execute(_ sql: String, _ binds: [SQLValue] = []) async throws {
        _ = try await query(sql, binds)
    }

    /// Runs a statement built elsewhere (``SQLStatement``), ignoring any rows.
    func execute(_ statement: SQLStatement) async throws {
        _ = try await query(statement.sql, statement.binds)
    }
}

/// A database: connections for reading, and one transaction at a time for writing.
package protocol SQLDatabase: Sendable {
    /// The SQL spellings this database needs.
    var dialect: SQLDialect { get }

    /// Runs the database's own long-lived work (a connection pool) until cancelled; returns at
    /// once if it has none.
    func run() async

    /// Runs `body` on a connection that sees a consistent snapshot of committed data.
    ///
    /// `@Sendable` because a driver may run it on a task of its own (PostgreSQL does, to stop
    /// waiting for a connection at a deadline).
    func read<Result: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> Result) async throws -> Result

    /// Runs one read statement by itself and returns its rows.
    ///
    /// A single statement sees one snapshot of committed data on its own, so it needs none of
    /// the transaction ``read(_:)`` opens around a body: on PostgreSQL that saves the `BEGIN`
    /// and `COMMIT` round trips, two of the three a one-statement read would otherwise take.
    /// `reusingPlan` as for ``SQLConnection/query(_:_:reusingPlan:)``.
    func readStatement(_ sql: String, _ binds: [SQLValue], reusingPlan: Bool) async throws -> [SQLRow]

    /// Runs `body` in a write transaction that commits when it returns and rolls back when it throws.
    ///
    /// Writes with the same `key` take turns (a tenant's writes all bump its database counter, so
    /// they would only collide); the body may still run more than once, where the database aborts
    /// a transaction that collided with another or a write grouped with it failed (SQLite's and
    /// PostgreSQL's group commit), so it must do nothing but database work.
    /// On PostgreSQL a keyed write's statements each see every write committed before they
    /// started: rows no other writer of the key touches may change between two of them, so a
    /// statement that writes such a row must be right on the row as it then is (an upsert whose
    /// `RETURNING` is checked, a condition in the `UPDATE` itself). The
    /// body may run on another task than the caller's (SQLite runs concurrent writers' bodies in
    /// one shared transaction), hence `@Sendable`.
    func write<Result: Sendable>(
        serializing key: String?,
        _ body: @escaping @Sendable (any SQLConnection) async throws -> Result
    ) async throws -> Result

    /// Runs `body` in a write transaction that takes `key`'s turn in its first statement: the
    /// body puts `turn`, an SQL condition, in that statement's `WHERE`, where it takes, until
    /// commit, the lock ``write(serializing:_:)`` takes for a transaction. Bodies take turns
    /// with those of `write(serializing:)` with the same key. The condition is reached only if
    /// the statement reads a row it guards: a body must write nothing unless that statement
    /// returned rows.
    ///
    /// Two round trips fewer than a lock around the transaction (PostgreSQL's lock and unlock),
    /// for a price: a transaction that waited for its turn reads with a snapshot taken before
    /// the previous holder committed. Where it writes or locks a row that holder changed, the
    /// database aborts it, and it runs again with the lock around it; a read alone is not
    /// checked. For a body whose writes meet any other holder's, and whose turn is seldom
    /// taken by another process.
    func write<Result: Sendable>(
        takingTurnOf key: String,
        _ body: @escaping @Sendable (_ connection: any SQLConnection, _ turn: String) async throws -> Result
    ) async throws -> Result

    /// Creates an index unless one of that name exists, without holding writers up for long.
    ///
    /// PostgreSQL builds it concurrently with writes, outside a transaction, with no statement
    /// timeout; an earlier build that failed half-way (an invalid index of the name) is dropped
    /// first, and processes building the same index take turns. SQLite builds it in a write
    /// transaction of its own: writers wait for it, readers do not.
    ///
    /// - Returns: `false` when another process was building it: whether that build succeeds is
    ///   not known here, so the caller should ask again later.
    func createIndexIfMissing(named name: String, on table: String, columns: String, where predicate: String) async throws -> Bool

    /// Calls `receive` with the payload of every notification on `channel` (PostgreSQL's
    /// `LISTEN`) until the task is cancelled; throws when the connection is lost. A database
    /// without such notifications (SQLite: one process) returns at once.
    func listen(channel: String, _ receive: @escaping @Sendable (String) -> Void) async throws

    /// Closes every connection. Nothing may use the database afterwards.
    func close() async
}

extension SQLDatabase {
    /// Runs one read statement, which may reuse its plan, by itself and returns its rows.
    package func readStatement(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await readStatement(sql, binds, reusingPlan: true)
    }

    /// Runs `body` in a write transaction that need not wait for any other.
    package func write<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) async throws -> Result
    ) async throws -> Result {
        try await write(serializing: nil, body)
    }
}
