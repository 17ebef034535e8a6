//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// What the store holds, for `/metrics` and the console: cheap to ask at every scrape.
public struct StoreStatistics: Sendable, Hashable {
    /// The bytes the data takes on disk (the SQLite file, or the PostgreSQL schema's tables).
    public var storageBytes: Int64
    /// Committed writes whose notifications are not dispatched yet.
    public var pendingChangeEvents: Int64

    /// Creates statistics.
    public init(storageBytes: Int64, pendingChangeEvents: Int64) {
        self.storageBytes = storageBytes
        self.pendingChangeEvents = pendingChangeEvents
    }
}

/// A store that can say how much it holds.
public protocol StoreStatisticsSource: Sendable {
    /// The store's statistics now.
    func statistics() async throws -> StoreStatistics
}
