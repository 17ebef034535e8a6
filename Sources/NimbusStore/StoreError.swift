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
        /// The database failed; `detail` says how. Nothing was written.
        case database
        /// The database stopped answering while committing: the write may or may not have been
        /// made, and only reading it back tells.
        case outcomeUnknown
    }

    /// What went wrong.
    public var kind: Kind
    /// Driver detail for logs and debugging; may contain SQL. Never shown to clients.
    public var detail: String

    /// Creates a store error.
    public init(_ kind: Kind, detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    /// The kind only, without the driver's detail.
    public var description: String { "StoreError(\(kind))" }
    /// The kind with the driver's detail, for logs.
    public var debugDescription: String { "StoreError(\(kind)): \(detail)" }
}
