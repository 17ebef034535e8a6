//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusStore

extension SQLStore: StoreStatisticsSource {
    public func statistics() async throws -> StoreStatistics {
        let dialect = database.dialect
        let storage = try await database.readStatement(dialect.storageBytesStatement, [])
        let pending = try await database.readStatement("SELECT COUNT(*) FROM change_events", [])
        return StoreStatistics(storageBytes: storage.first?.int(0) ?? 0, pendingChangeEvents: pending.first?.int(0) ?? 0)
    }
}
