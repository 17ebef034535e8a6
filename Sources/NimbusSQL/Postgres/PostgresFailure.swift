//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore
import PostgresNIO

/// What a PostgreSQL error means to the store.
struct PostgresFailure {
    let error: any Error

    init(_ error: any Error) {
        self.error = error
    }

    /// The SQLSTATE the server reported, if the server reported the error.
    var sqlState: String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// Whether a COMMIT that failed this way may still have committed: the connection failed
    /// after the statement was sent and before its answer, or the server answered that it is
    /// shutting down or lost the connection (classes 57P and 08), which it may do after the
    /// commit is durable. An error the server reported otherwise means it did not commit, and a
    /// connection that was closed before the statement was sent sent nothing.
    var leavesCommitUnknown: Bool {
        if let lost = error as? PostgresConnectionLost { return lost.afterSending }
        guard let psql = error as? PSQLError else { return false }
        guard let state = psql.serverInfo?[.sqlState] else { return true }
        return state.hasPrefix("57P") || state.hasPrefix("08")
    }

    /// Whether the connection failed, not the statement: lost, closed, or the server ending it
    /// (classes 08 and 57P). Nothing more can run on it.
    var isConnectionFailure: Bool {
        if error is PostgresConnectionLost { return true }
        guard let psql = error as? PSQLError else { return false }
        guard let state = psql.serverInfo?[.sqlState] else { return true }
        return state.hasPrefix("08") || state.hasPrefix("57P")
    }

    /// Whether the transaction lost a race with another and may succeed if run again:
    /// `serialization_failure`, `deadlock_detected`, or a race the store found itself
    /// (``FieldAddedConcurrently``).
    var isSerializationFailure: Bool {
        sqlState == "40001" || sqlState == "40P01" || error is FieldAddedConcurrently
    }

    /// The error for the store's callers: driver errors become ``StoreError``s, whatever else the
    /// store's own code threw passes through. The server's message and the statement (never its
    /// bound values, which may hold user data) go into the detail, for the log.
    var storeError: any Error {
        if let lost = error as? PostgresConnectionLost { return StoreError(.database, detail: lost.description) }
        guard let error = error as? PSQLError else { return self.error }
        let code = sqlState.map(StoreError.DriverCode.postgres)
        switch sqlState {
        case "22021", "22P05":
            // character_not_in_repertoire, untranslatable_character: a NUL in text, say.
            return StoreError(.unstorableValue, detail: error.serverInfo?[.message] ?? "", driverCode: code)
        case "23505":
            return StoreError(.alreadyExists, detail: error.serverInfo?[.message] ?? "unique violation", driverCode: code)
        case let state? where state.hasPrefix("23"):
            return StoreError(.constraintViolation, detail: error.serverInfo?[.message] ?? "integrity constraint violation", driverCode: code)
        default:
            break
        }
        var detail = "PostgreSQL \(error.code)"
        if let info = error.serverInfo {
            detail += " \(info[.sqlState] ?? "")"
            detail += ": \(info[.message] ?? "")"
        }
        if let query = error.query {
            detail += " in: \(query.sql)"
        }
        return StoreError(.database, detail: detail, driverCode: code)
    }
}
