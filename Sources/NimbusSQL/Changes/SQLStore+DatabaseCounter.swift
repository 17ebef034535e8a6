//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore

extension SQLStore {
    /// Takes the next value of a tenant's database counter, inside the caller's write
    /// transaction.
    ///
    /// The row stays locked until the transaction ends, so values are handed out in commit order,
    /// as zone counters are: a reader that saw a value can never later find a smaller one.
    static func nextDatabaseCounter(of tenant: Tenant, on connection: any SQLConnection) async throws -> Int64 {
        let rows = try await connection.query(nextDatabaseCounterSQL, binds(tenant))
        guard let row = rows.first else { throw StoreError(.database, detail: "database counter upsert returned no row") }
        return row.int(0)
    }

    /// Moves a tenant's database counter on by one and returns it (binds: ``binds(_:)``).
    static let nextDatabaseCounterSQL = moveDatabaseCounterSQL + "\nRETURNING change_counter"

    /// Moves a tenant's database counter on by one (binds: ``binds(_:)``); for SQLite, which
    /// answers `RETURNING` through a temporary table it opens and closes for the statement
    /// (``databaseCounterSQL`` reads the value back).
    static let moveDatabaseCounterSQL = """
        INSERT INTO databases (container, environment, owner, change_counter) VALUES (?, ?, ?, 1)
        ON CONFLICT (container, environment, owner) DO UPDATE SET change_counter = databases.change_counter + 1
        """

    /// A tenant's database counter, as an expression (binds: ``binds(_:)``).
    static let databaseCounterSQL = "(SELECT change_counter FROM databases WHERE container = ? AND environment = ? AND owner = ?)"
}
