//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The record types of every container environment, cached in memory over a ``SchemaStore``.
///
/// Fields only ever get added, and a field's type never changes, so a cached entry can only be
/// incomplete, never wrong: a miss goes to the store, which settles races between servers.
actor SchemaRegistry {
    private struct Key: Hashable {
        var container: ContainerEnvironment
        var recordType: String
    }

    private let store: any SchemaStore
    private var cache: [Key: [String: FieldSchema]] = [:]

    init(store: any SchemaStore) {
        self.store = store
    }

    /// Returns the known fields of a record type.
    func fields(of recordType: String, in container: ContainerEnvironment) async throws -> [String: FieldSchema] {
        let key = Key(container: container, recordType: recordType)
        if let fields = cache[key] { return fields }
        let fields = try await store.fields(ofRecordType: recordType, in: container)
        cache[key] = fields
        return fields
    }

    /// Records fields that a committed transaction added to a record type.
    func remember(_ fields: [String: FieldSchema], for recordType: String, in container: ContainerEnvironment) {
        let key = Key(container: container, recordType: recordType)
        guard var known = cache[key] else { return }  // not cached: the next read gets them from the store
        known.merge(fields) { old, _ in old }
        cache[key] = known
    }
}
