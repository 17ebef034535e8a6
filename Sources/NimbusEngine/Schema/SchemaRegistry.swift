//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The record types of every container environment, cached in memory over a ``SchemaStore``.
///
/// Fields only ever get added, a field's type never changes, and index markings are only ever
/// added, so a cached entry can only be incomplete, never wrong: a miss goes to the store, which
/// settles races between servers, and a marking a query lacks is looked for there again
/// (``refreshed(_:in:)``), since a deployment may have added it since.
actor SchemaRegistry {
    private struct Key: Hashable {
        var container: ContainerEnvironment
        var recordType: String
    }

    private let store: any SchemaStore
    private var cache: [Key: [NameKey: FieldSchema]] = [:]

    init(store: any SchemaStore) {
        self.store = store
    }

    /// Returns the known fields of a record type.
    func fields(of recordType: String, in container: ContainerEnvironment) async throws -> [NameKey: FieldSchema] {
        let key = Key(container: container, recordType: recordType)
        if let fields = cache[key] { return fields }
        let fields = try await store.fields(ofRecordType: recordType, in: container)
        // Merge rather than overwrite: a write may have taught the cache newer fields while
        // this read was in flight, and fields are never removed.
        let merged = (cache[key] ?? [:]).merging(fields) { known, stored in known.merging(stored) }
        cache[key] = merged
        return merged
    }

    /// The fields of a record type as the store has them now, merged into the cache.
    func refreshed(_ recordType: String, in container: ContainerEnvironment) async throws -> [NameKey: FieldSchema] {
        let key = Key(container: container, recordType: recordType)
        let stored = try await store.fields(ofRecordType: recordType, in: container)
        let merged = (cache[key] ?? [:]).merging(stored) { known, stored in known.merging(stored) }
        cache[key] = merged
        return merged
    }

    /// Returns the known fields of several record types, reading the store for uncached ones.
    func fields(of recordTypes: Set<String>, in container: ContainerEnvironment) async throws -> [String: [NameKey: FieldSchema]] {
        var result: [String: [NameKey: FieldSchema]] = [:]
        for recordType in recordTypes {
            result[recordType] = try await fields(of: recordType, in: container)
        }
        return result
    }

    /// Records fields a committed transaction saw or added: the whole schema of the type as of
    /// that commit, or more.
    func remember(_ fields: [NameKey: FieldSchema], for recordType: String, in container: ContainerEnvironment) {
        let key = Key(container: container, recordType: recordType)
        cache[key] = (cache[key] ?? [:]).merging(fields) { known, new in known.merging(new) }
    }
}
