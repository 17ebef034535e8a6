//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("schema store conformance")
struct SchemaStoreConformanceTests {
    private static let production = ContainerEnvironment(container: StoreFixture.container, environment: .production)

    @Test("fields added in a record transaction exist once it commits, with the type first given", arguments: StoreFactory.all)
    func justInTime(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            #expect(try await f.store.fields(ofRecordType: "Note", in: StoreFixture.development).isEmpty)
            let seen = try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                try await transaction.addFields(
                    ["title": FieldSchema(type: .string, isEncrypted: false), "secret": FieldSchema(type: .bytes, isEncrypted: true)],
                    toRecordType: "Note"
                )
                _ = try await transaction.save([f.record("n1", fields: ["title": .string("t")])])
                return try await transaction.fields(ofRecordType: "Note")
            }
            #expect(seen.mapValues(\.type) == ["title": .string, "secret": .bytes])
            let fields = try await f.store.fields(ofRecordType: "Note", in: StoreFixture.development)
            #expect(fields.mapValues(\.type) == ["title": .string, "secret": .bytes])
            #expect(fields.mapValues(\.isEncrypted) == ["title": false, "secret": true])
            // A field keeps its type: a later write giving another leaves it as it was.
            try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                try await transaction.addFields(
                    ["title": FieldSchema(type: .int64, isEncrypted: false), "rank": FieldSchema(type: .int64, isEncrypted: false)],
                    toRecordType: "Note"
                )
            }
            let later = try await f.store.fields(ofRecordType: "Note", in: StoreFixture.development)
            #expect(later.mapValues(\.type) == ["title": .string, "secret": .bytes, "rank": .int64])
            // The schema is per container environment.
            #expect(try await f.store.fields(ofRecordType: "Note", in: Self.production).isEmpty)
            #expect(try await f.store.schema(of: StoreFixture.development).mapValues { $0.mapValues(\.type) } == ["Note": later.mapValues(\.type)])
        }
    }

    @Test("fields added in a transaction that fails are not added", arguments: StoreFactory.all)
    func rolledBack(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            await #expect(throws: DeliberateFailure()) {
                try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                    try await transaction.addFields(["title": FieldSchema(type: .string, isEncrypted: false)], toRecordType: "Note")
                    throw DeliberateFailure()
                }
            }
            #expect(try await f.store.fields(ofRecordType: "Note", in: StoreFixture.development).isEmpty)
            #expect(try await f.store.schema(of: StoreFixture.development).isEmpty)
        }
    }

    @Test("adding a schema adds its types, fields and index markings, and never removes a marking", arguments: StoreFactory.all)
    func addSchema(factory: StoreFactory) async throws {
        try await factory.with { f in
            let indexed = FieldSchema(type: .string, isEncrypted: false, isQueryable: true, isSortable: true, isSearchable: true)
            let plain = FieldSchema(type: .int64, isEncrypted: false)
            try await f.store.addSchema(["Note": ["title": indexed, "rank": plain], "Folder": ["name": plain]], to: Self.production)
            #expect(try await f.store.schema(of: Self.production) == ["Note": ["title": indexed, "rank": plain], "Folder": ["name": plain]])
            #expect(try await f.store.fields(ofRecordType: "Note", in: Self.production) == ["title": indexed, "rank": plain])

            let unmarked = FieldSchema(type: .string, isEncrypted: false)
            var sortableRank = plain
            sortableRank.isSortable = true
            try await f.store.addSchema(["Note": ["title": unmarked, "rank": sortableRank]], to: Self.production)
            #expect(try await f.store.fields(ofRecordType: "Note", in: Self.production) == ["title": indexed, "rank": sortableRank])
            #expect(try await f.store.schema(of: StoreFixture.development).isEmpty)
        }
    }

    @Test("a schema with a field of another type or encryption throws SchemaConflict and adds nothing", arguments: StoreFactory.all)
    func conflict(factory: StoreFactory) async throws {
        try await factory.with { f in
            let title = FieldSchema(type: .string, isEncrypted: false)
            try await f.store.addSchema(["Note": ["title": title]], to: Self.production)
            let before = try await f.store.schema(of: Self.production)
            let retyped = FieldSchema(type: .int64, isEncrypted: false)
            let encrypted = FieldSchema(type: .string, isEncrypted: true)
            for incoming in [retyped, encrypted] {
                let schema: [String: [NameKey: FieldSchema]] = [
                    "Alpha": ["new": title], "Note": ["title": incoming, "extra": title], "Zulu": ["new": title],
                ]
                do {
                    try await f.store.addSchema(schema, to: Self.production)
                    Issue.record("a conflicting schema was added: \(incoming)")
                } catch let conflict as SchemaConflict {
                    #expect(conflict == SchemaConflict(recordType: "Note", field: "title", existing: title, incoming: incoming))
                }
                #expect(try await f.store.schema(of: Self.production) == before)
            }
        }
    }
}
