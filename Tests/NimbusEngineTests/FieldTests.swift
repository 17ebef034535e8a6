//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusEngine
import NimbusModel
import Testing

@Suite("field types and encrypted values")
struct FieldTests {
    static let everyType: [(String, FieldValue)] = [
        ("string", .string("héllo")),
        ("int", .int64(-42)),
        ("double", .double(3.25)),
        ("timestamp", .timestamp(1_700_000_000_123)),
        ("bytes", .bytes(Data([0, 1, 2, 255]))),
        ("encryptedBytes", .encryptedBytes(Data([9, 8]))),
        ("reference", .reference(Reference(recordName: "other", action: .none))),
        ("location", .location(Location(latitude: 52.5, longitude: 13.4, altitude: 34))),
        ("strings", .list(elementType: .string, [.string("a"), .string("b")])),
        ("ints", .list(elementType: .int64, [.int64(1), .int64(2)])),
        ("doubles", .list(elementType: .double, [.double(1.5)])),
        ("timestamps", .list(elementType: .timestamp, [.timestamp(1)])),
        ("bytesList", .list(elementType: .bytes, [.bytes(Data([1]))])),
        ("references", .list(elementType: .reference, [.reference(Reference(recordName: "a"))])),
        ("locations", .list(elementType: .location, [.location(Location(latitude: 1, longitude: 2))])),
        ("emptyList", .list(elementType: .string, [])),
    ]

    // Assets are saved with an upload's receipt: the asset suites (NimbusHTTPTests/Assets)
    // round-trip them, single and in lists, through the store.
    @Test("every field type of the spec round-trips through the store")
    func everyTypeRoundTrips() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let fields = Dictionary(uniqueKeysWithValues: Self.everyType.map { (NameKey($0.0), $0.1) })
            _ = try await f.save(.note("all", fields))
            let stored = try #require(try await f.lookup("all"))
            #expect(stored.fields == fields)
        }
    }

    @Test("a value of another type than the field's is a BAD_REQUEST; nothing is written")
    func wrongType() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n1", ["count": .int64(1)]))
            let results = try await f.modify([.note("n2", ["count": .string("one")])])
            #expect(results.first?.error?.code == .badRequest)
            #expect(results.first?.error?.reason.contains("INT64") == true)
            #expect(try await f.lookup("n2") == nil)
        }
    }

    @Test("an untyped value takes the field's type when its shape allows")
    func untypedValuesAreCoerced() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n1", ["when": .timestamp(5)]))
            var untyped = RecordOperation.note("n2")
            untyped.fields["when"] = FieldInput(.int64(1_700_000_000_000), isTypeExplicit: false)
            _ = try await f.save(untyped)
            #expect(try await f.lookup("n2")?.fields["when"] == .timestamp(1_700_000_000_000))
        }
    }

    @Test("invalid field names are rejected", arguments: ["1abc", "___createTime", "with space", "quo\"te", "été", "naïve", "_x"])
    func invalidFieldNames(name: String) async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let results = try await f.modify([.note("n1", [NameKey(name): .string("x")])])
            #expect(results.first?.error?.code == .badRequest)
        }
    }

    @Test("letters, digits, '_' and '.' make valid field names")
    func validFieldNames() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let names = ["a", "Z9", "cloudkit.title", "snake_case_1", String(repeating: "x", count: 255)]
            let results = try await f.modify([.note("n1", Dictionary(uniqueKeysWithValues: names.map { (NameKey($0), FieldValue.string("x")) }))])
            #expect(results.first?.record?.fields.count == names.count, "\(results)")
        }
    }

    @Test("encrypted values are stored encrypted: their clear text is in no file or row of the database")
    func encryptedAtRest() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let secret = "correct-horse-battery-staple-\(UUID().uuidString)"
            var operation = RecordOperation.note("n1", ["title": .string("visible-title-marker")])
            operation.fields["diagnosis"] = FieldInput(.string(secret), isEncrypted: true)
            _ = try await f.save(operation)
            let stored = try #require(try await f.lookup("n1"))
            #expect(stored.encryptedFields["diagnosis"] == .string(secret))
            #expect(stored.fields["diagnosis"] == nil)
            var sawTitle = false
            if f.testDatabase.isPostgres {
                // The server's files are out of reach; every stored byte of the records is not.
                let dump = try await f.testDatabase.inspect(
                    "SELECT record_name, fields, encode(encrypted_fields, 'escape') FROM records"
                )
                #expect(!dump.contains(secret), "clear text found in the records table")
                sawTitle = dump.contains("visible-title-marker")
            } else {
                for file in try FileManager.default.contentsOfDirectory(atPath: f.directory.path) {
                    let data = try Data(contentsOf: f.directory.appendingPathComponent(file))
                    #expect(data.range(of: Data(secret.utf8)) == nil, "clear text found in \(file)")
                    sawTitle = sawTitle || data.range(of: Data("visible-title-marker".utf8)) != nil
                }
            }
            // Proves the scan reads the files records are written to.
            #expect(sawTitle)
        }
    }

    @Test("encrypted fields cannot be used in a filter or a sort")
    func encryptedNotQueryable() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            var operation = RecordOperation.note("n1")
            operation.fields["diagnosis"] = FieldInput(.string("x"), isEncrypted: true)
            _ = try await f.save(operation)
            let zone = ZoneID(zoneName: "Notes", ownerRecordName: "")
            let queries = [
                Query(recordType: "Note", filters: [Filter("diagnosis", .equals, .string("x"))]),
                Query(recordType: "Note", sortDescriptors: [SortDescriptor("diagnosis")]),
            ]
            for query in queries {
                do {
                    _ = try await f.database.queryRecords(query, inZone: zone, resultsLimit: nil, continuationMarker: nil, access: f.access(f.alice))
                    Issue.record("query on an encrypted field ran")
                } catch let error as NimbusError {
                    #expect(error.code == .badRequest)
                    #expect(error.reason.contains("encrypted"))
                }
            }
        }
    }

    @Test("a field cannot switch between encrypted and plain")
    func encryptionIsFixed() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n1", ["title": .string("plain")]))
            var operation = RecordOperation.note("n2")
            operation.fields["title"] = FieldInput(.string("now secret"), isEncrypted: true)
            let results = try await f.modify([operation])
            #expect(results.first?.error?.code == .badRequest)
        }
    }
}

@Suite("hostile names and values")
struct HostileInputTests {
    @Test("record names with control characters are rejected, so no name can alias another")
    func controlCharactersInNames() async throws {
        try await EngineFixture.with { f in
            let zone = ZoneID.defaultZoneName
            _ = try await f.save(.note("post1", ["title": .string("alice's")]), zone: zone, as: f.alice, scope: .public)
            for name in ["post1\u{0}", "post1\n", "post1\u{7F}", "post1\u{85}", String(repeating: "x", count: 256)] {
                let results = try await f.modify([.note(name, ["title": .string("bob's")])], zone: zone, as: f.bob, scope: .public)
                #expect(results.first?.error?.code == .badRequest)
            }
            let stored = try #require(try await f.lookup("post1", zone: zone, as: f.alice, scope: .public))
            #expect(stored.fields["title"] == .string("alice's"))
            #expect(stored.created.userRecordName == f.alice)
        }
    }

    @Test("a number too large for a timestamp is a BAD_REQUEST, in filters and in saves")
    func hugeTimestamps() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n1", ["when": .timestamp(1)]))
            do {
                _ = try await f.database.queryRecords(
                    Query(recordType: "Note", filters: [Filter("when", .greaterThan, .double(1e19))]),
                    inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                    resultsLimit: nil,
                    continuationMarker: nil,
                    access: f.access(f.alice)
                )
                Issue.record("query with an out-of-range timestamp ran")
            } catch let error as NimbusError {
                #expect(error.code == .badRequest)
            }
            var untyped = RecordOperation.note("n2")
            untyped.fields["when"] = FieldInput(.double(1e19), isTypeExplicit: false)
            let results = try await f.modify([untyped])
            #expect(results.first?.error?.code == .badRequest)
        }
    }

    @Test("string values with NUL characters are rejected: SQLite's JSON functions would cut them short")
    func nulInValues() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let results = try await f.modify([.note("n1", ["title": .string("a\u{0}b")])])
            #expect(results.first?.error?.code == .badRequest)
            #expect(try await f.lookup("n1") == nil)
            do {
                _ = try await f.database.queryRecords(
                    Query(recordType: "Note", filters: [Filter("title", .equals, .string("a\u{0}b"))]),
                    inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                    resultsLimit: nil,
                    continuationMarker: nil,
                    access: f.access(f.alice)
                )
                Issue.record("filter with NUL ran")
            } catch let error as NimbusError {
                #expect(error.code == .badRequest)
            }
        }
    }

    @Test("BEGINS_WITH counts characters as SQLite does: flags and combining marks match")
    func beginsWithGraphemes() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("fr", ["title": .string("🇫🇷 Paris")]))
            _ = try await f.save(.note("accent", ["title": .string("e\u{301}té")]))
            for (prefix, expected) in [("🇫🇷", "fr"), ("e\u{301}", "accent")] {
                let result = try await f.database.queryRecords(
                    Query(recordType: "Note", filters: [Filter("title", .beginsWith, .string(prefix))]),
                    inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                    resultsLimit: nil,
                    continuationMarker: nil,
                    access: f.access(f.alice)
                )
                #expect(result.records.map(\.recordID.recordName) == [expected])
            }
        }
    }
}

@Suite("just-in-time schema")
struct SchemaTests {
    @Test("a refused or failed operation does not shape the schema")
    func failedOperationsLeaveNoFields() async throws {
        try await EngineFixture.with { f in
            let zone = ZoneID.defaultZoneName
            let alices = try await f.save(.note("post", ["title": .string("mine")]), zone: zone, as: f.alice, scope: .public)
            // Bob may not change Alice's record: his value's type must not become the field's type.
            let refused = try await f.modify(
                [.note("post", ["date": .string("not a date")], kind: .forceUpdate)],
                zone: zone,
                as: f.bob,
                scope: .public
            )
            #expect(refused.first?.error?.code == .permissionFailure)
            let saved = try await f.modify(
                [.note("post", ["date": .timestamp(1)], kind: .update, tag: alices.recordChangeTag)],
                zone: zone,
                as: f.alice,
                scope: .public
            )
            #expect(saved.first?.record?.fields["date"] == .timestamp(1))
            // Nor does an atomic batch that wrote nothing.
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("exists"))
            let atomic = try await f.modify([.note("fresh", ["mood": .string("x")]), .note("exists")], atomic: true)
            #expect(atomic.first?.error?.code == .atomicFailure)
            let later = try await f.modify([.note("fresh", ["mood": .int64(3)])])
            #expect(later.first?.record?.fields["mood"] == .int64(3))
        }
    }

    @Test("writers in one commit agree on a new field's type")
    func concurrentNewFields() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let outcomes = try await withThrowingTaskGroup(of: RecordResult?.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let value: FieldValue = index.isMultiple(of: 2) ? .string("s") : .int64(1)
                        return try await f.modify([.note("r\(index)", ["shape": value])]).first
                    }
                }
                return try await group.reduce(into: [RecordResult?]()) { $0.append($1) }
            }
            let saved = outcomes.compactMap { $0?.record }
            let types = Set(saved.compactMap { $0.fields["shape"]?.type })
            #expect(types.count == 1)
            #expect(saved.count + outcomes.filter { $0?.error?.code == .badRequest }.count == 20)
        }
    }
}
