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

    /// Adds any of `fields` the record type lacks, and returns every field of the type.
    func register(
        _ fields: [String: FieldSchema],
        for recordType: String,
        in container: ContainerEnvironment
    ) async throws -> [String: FieldSchema] {
        let known = try await self.fields(of: recordType, in: container)
        guard fields.keys.contains(where: { known[$0] == nil }) else { return known }
        let stored = try await store.addFields(fields, toRecordType: recordType, in: container)
        // Re-read after the await: another task may have cached a newer copy meanwhile.
        let key = Key(container: container, recordType: recordType)
        cache[key] = (cache[key] ?? [:]).merging(stored) { _, new in new }
        return cache[key] ?? stored
    }
}
