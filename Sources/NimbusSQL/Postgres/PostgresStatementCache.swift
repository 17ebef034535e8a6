//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import PostgresNIO
import Synchronization

/// The store's statements prepared on each connection of the pool, by name.
///
/// PostgreSQL parses, analyses and plans a statement sent without a name every time it runs;
/// one prepared under a name is parsed once per connection, and its plan is reused (PostgreSQL
/// still plans afresh when a generic plan would cost more than a custom one). The store sends
/// a few dozen statement texts over and over, so each connection prepares each once.
///
/// A statement's name stands for its text *and* the types of its parameters: the types are
/// fixed when it is prepared (from the values bound the first time, as for an unnamed
/// statement), so the same text bound with other types is another statement.
///
/// A statement that takes a list (``SQLValue/textList(_:)``, ``SQLValue/integerList(_:)``) is
/// not prepared: the best plan for one element is not the best for two hundred, and PostgreSQL,
/// after five runs, may keep one plan for all.
///
/// Bounded two ways, since the server keeps every prepared statement until the connection
/// closes: statements with more than ``maximumBinds`` parameters (the multi-row INSERTs of
/// large batches, whose planning is shared by their many rows) are not prepared, and a
/// connection prepares at most `capacity` statements (forgotten ones included: the server may
/// still hold them); past that, it sends the rest unnamed.
final class PostgresStatementCache: Sendable {
    /// A statement as prepared on one connection.
    struct Prepared: Sendable {
        var name: String
        /// The statement with `$1, $2, …` placeholders, as PostgreSQL reads it.
        var sql: String
    }

    /// A statement's text and the type of each value bound to it (`n` for null, which leaves
    /// the parameter's type to the server); the text hashed by its digest (``StatementKey``),
    /// and not copied.
    struct Key: Hashable, Sendable {
        var statement: StatementKey
        var types: [UInt8]
    }

    private struct Connection {
        var statements: [Key: Prepared] = [:]
        /// Names handed out on the connection, the forgotten ones too: each name is used once.
        var issued = 0
    }

    /// Room for a single-record save's statement (its counters, the record's 20 values and its
    /// outbox row: 35), none for a two-record one's.
    static let maximumBinds = 40
    private let capacity: Int
    private let connections = Mutex<[PostgresConnection.ID: Connection]>([:])

    /// - Parameter capacity: the most statements one connection prepares; 0 prepares none.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The statement to run for `sql` bound to `binds` on `connection`, or `nil` when it is to
    /// be sent unnamed; `isNew` when the connection has not prepared it yet (its run prepares it).
    func statement(for sql: String, binds: [SQLValue], on connection: PostgresConnection) -> (key: Key, prepared: Prepared, isNew: Bool)? {
        guard capacity > 0, binds.count <= Self.maximumBinds, !binds.contains(where: \.isList) else { return nil }
        let key = Self.key(sql, binds)
        let id = connection.id
        let (prepared, isNewStatement, isNewConnection): (Prepared?, Bool, Bool) = connections.withLock { connections in
            let isNew = connections[id] == nil
            if let known = connections[id]?.statements[key] { return (known, false, false) }
            var entry = connections[id] ?? Connection()
            guard entry.issued < capacity else { return (nil, false, isNew) }
            entry.issued += 1
            let prepared = Prepared(name: "nimbus_\(entry.issued)", sql: PostgresSQLConnection.numberingPlaceholders(sql))
            entry.statements[key] = prepared
            connections[id] = entry
            return (prepared, true, isNew)
        }
        if isNewConnection {
            // The server forgets a connection's statements when it closes; so does the cache.
            connection.closeFuture.whenComplete { _ in
                self.connections.withLock { _ = $0.removeValue(forKey: id) }
            }
        }
        return prepared.map { (key, $0, isNewStatement) }
    }

    /// Forgets a statement whose run failed, so the next run prepares it again under a new
    /// name: the driver remembers a failed preparation for good, and the failure may have been
    /// the transaction's (aborted, cancelled) rather than the statement's.
    func forget(_ key: Key, on connection: PostgresConnection) {
        let id = connection.id
        connections.withLock { _ = $0[id]?.statements.removeValue(forKey: key) }
    }

    /// The key of `sql` bound to `binds`.
    private static func key(_ sql: String, _ binds: [SQLValue]) -> Key {
        var types: [UInt8] = []
        types.reserveCapacity(binds.count)
        for value in binds {
            switch value {
            case .null: types.append(UInt8(ascii: "n"))
            case .integer: types.append(UInt8(ascii: "i"))
            case .real: types.append(UInt8(ascii: "r"))
            case .text: types.append(UInt8(ascii: "t"))
            case .blob: types.append(UInt8(ascii: "b"))
            case .textList: types.append(UInt8(ascii: "l"))
            case .integerList: types.append(UInt8(ascii: "m"))
            }
        }
        return Key(statement: StatementKey(sql: sql), types: types)
    }
}
