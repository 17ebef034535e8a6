//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Failures of a store that callers act on; anything else is a driver error.
///
/// The engine maps these to `NimbusError` at its boundary, so storage details never reach
/// clients. `description` is generic on purpose; the driver's text is in `debugDescription`.
public struct StoreError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The zone does not exist (or was deleted).
        case zoneNotFound
        /// A zone, container, user or key with that identity exists already.
        case alreadyExists
        /// A change feed position belongs to an earlier incarnation of its zone.
        case zoneRecreated
        /// Changes after a change feed position are no longer kept.
        case changesPruned
        /// The database cannot hold a value it was given (PostgreSQL's text cannot hold NUL).
        case unstorableValue
        /// A write would take its owner past their storage quota; `detail` says by how much.
        case quotaExceeded
        /// A saved asset field names an asset that no longer exists (it was collected) or
        /// belongs to another database.
        case assetNotFound
        /// The database refused a write that broke one of its rules other than uniqueness (a
        /// `NOT NULL` or `CHECK` constraint): a defect of the store, not of the request.
        case constraintViolation
        /// The database failed; `detail` says how. Nothing was written.
        case database
        /// The database stopped answering while committing: the write may or may not have been
        /// made, and only reading it back tells.
        case outcomeUnknown
    }

    /// The code a database driver reported a failure with: what the store decides a failure's
    /// kind by, never its message text.
    public enum DriverCode: Sendable, Hashable {
        /// An SQLite extended result code, such as 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
        case sqlite(Int32)
        /// A PostgreSQL SQLSTATE, such as `23505` (`unique_violation`).
        case postgres(String)
    }

    /// What went wrong.
    public var kind: Kind
    /// Driver detail for logs and debugging; may contain SQL. Never shown to clients.
    public var detail: String
    /// The driver's code for the failure, when a driver reported it.
    public var driverCode: DriverCode?

    /// Creates a store error.
    public init(_ kind: Kind, detail: String = "", driverCode: DriverCode? = nil) {
        self.kind = kind
        self.detail = detail
        self.driverCode = driverCode
    }

    /// Whether another connection held a lock the failed statement needed (SQLite's
    /// `SQLITE_BUSY` and `SQLITE_LOCKED`, PostgreSQL's `lock_not_available`): trying again later
    /// may succeed.
    public var isBusy: Bool {
        switch driverCode {
        case .sqlite(let code): code & 0xff == 5 || code & 0xff == 6
        case .postgres(let state): state == "55P03"
        case nil: false
        }
    }

    /// The kind only, without the driver's detail.
    public var description: String { "StoreError(\(kind))" }
    /// The kind with the driver's detail, for logs.
    public var debugDescription: String { "StoreError(\(kind)): \(detail)" }
}
