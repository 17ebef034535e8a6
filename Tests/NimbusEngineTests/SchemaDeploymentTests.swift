//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusStore
import Testing

/// Index markings: development marks what it creates; production queries need markings, which
/// a deployment brings.
@Suite("schema: index markings and deployment")
struct SchemaDeploymentTests {
    static let container = EngineFixture.container

    static func access(_ f: EngineFixture, _ environment: Environment) -> DatabaseAccess {
        DatabaseAccess(
            caller: Caller(container: container, environment: environment, kind: .user, userRecordName: f.alice),
            scope: .public
        )
    }

    static func save(_ f: EngineFixture, _ environment: Environment, _ fields: [NameKey: FieldValue]) async throws {
        let results = try await f.database.modifyRecords(
            [.note(nil, fields)],
            inZone: nil,
            atomic: false,
            access: access(f, environment)
        )
        guard case .saved = results.first else { throw FixtureError("not saved: \(results)") }
    }

    static func query(_ f: EngineFixture, _ environment: Environment, _ query: Query) async throws(NimbusError) -> Int {
        try await f.database.queryRecords(query, inZone: nil, resultsLimit: nil, continuationMarker: nil, access: access(f, environment)).records
            .count
    }

    /// The error a query fails with; `nil` if it ran.
    static func failure(_ f: EngineFixture, _ environment: Environment, _ query: Query) async -> NimbusError? {
        do throws(NimbusError) {
            _ = try await Self.query(f, environment, query)
            return nil
        } catch {
            return error
        }
    }

    /// The error reading a schema file fails with; `nil` if it was read.
    static func readFailure(_ text: String) -> NimbusError? {
        do throws(NimbusError) {
            _ = try RecordSchemaJSON.read(text)
            return nil
        } catch {
            return error
        }
    }

    static let byTitle = Query(
        recordType: "Note",
        filters: [Filter("title", .equals, .string("a"))],
        sortDescriptors: [SortDescriptor("rank", ascending: true)]
    )

    @Test("production refuses unmarked fields with CloudKit's words until the development schema is deployed")
    func deployment() async throws {
        try await EngineFixture.with { f in
            try await Self.save(f, .development, ["title": .string("a"), "rank": .int64(1), "tags": .list(elementType: .string, [.string("x")])])
            #expect(try await Self.query(f, .development, Self.byTitle) == 1)
            // Production creates the fields it is sent, without indexes.
            try await Self.save(f, .production, ["title": .string("a"), "rank": .int64(2)])
            for (query, reason) in [
                (Self.byTitle, "Field 'title' is not marked queryable"),
                (Query(recordType: "Note", sortDescriptors: [SortDescriptor("rank", ascending: true)]), "Field 'rank' is not marked sortable"),
                (Query(recordType: "Note", filters: [Filter("unknown", .equals, .string("a"))]), "Field 'unknown' is not marked queryable"),
            ] {
                let error = await Self.failure(f, .production, query)
                #expect(error?.code == .badRequest && error?.reason == reason, "\(String(describing: error))")
            }
            // System fields need no marking.
            let recent = Query(recordType: "Note", filters: [Filter("___createTime", .greaterThan, .timestamp(0))])
            #expect(try await Self.query(f, .production, recent) == 1)

            let schema = SchemaAdministration(store: f.store)
            let planned = try await schema.deploy(container: Self.container, dryRun: true)
            #expect(
                planned.map(\.description) == [
                    "+ queryable Note.rank", "+ sortable Note.rank", "+ field Note.tags STRING_LIST (queryable)", "+ queryable Note.title",
                    "+ sortable Note.title", "+ searchable Note.title",
                ]
            )
            #expect(await Self.failure(f, .production, Self.byTitle)?.code == .badRequest, "a dry run deployed")
            #expect(try await schema.deploy(container: Self.container) == planned)
            #expect(try await Self.query(f, .production, Self.byTitle) == 1, "the server's cached schema learned the deployment")
            #expect(try await schema.deploy(container: Self.container).isEmpty, "deploying again changes nothing")
        }
    }

    @Test("a field whose type differs between development and production stops the whole deployment")
    func conflict() async throws {
        try await EngineFixture.with { f in
            try await Self.save(f, .production, ["code": .int64(7)])
            try await Self.save(f, .development, ["code": .string("seven"), "title": .string("t")])
            let schema = SchemaAdministration(store: f.store)
            await #expect(throws: SchemaConflict.self) { try await schema.deploy(container: Self.container) }
            let production = try await schema.schema(of: ContainerEnvironment(container: Self.container, environment: .production))
            #expect(production["Note"]?["title"] == nil, "nothing was deployed")
        }
    }

    @Test("a schema file round-trips; a bad one is refused with the place of the problem")
    func schemaFile() async throws {
        let schema: RecordSchema = [
            "Note": [
                "title": FieldSchema(type: .string, isEncrypted: false, isQueryable: true, isSortable: true, isSearchable: true),
                "secret": FieldSchema(type: .string, isEncrypted: true),
                "tags": FieldSchema(type: .stringList, isEncrypted: false, isQueryable: true),
            ]
        ]
        #expect(try RecordSchemaJSON.read(RecordSchemaJSON.write(schema)) == schema)
        // A marking the type cannot have is dropped.
        let listSorted = try RecordSchemaJSON.read(#"{"recordTypes": {"Note": {"fields": {"tags": {"type": "STRING_LIST", "sortable": true}}}}}"#)
        #expect(listSorted["Note"]?["tags"]?.isSortable == false)
        for (text, place) in [
            (#"{"recordTypes": {"Note": {"fields": {"n": {"type": "NUMBER"}}}}}"#, "recordTypes.Note.fields.n.type"),
            (#"{"recordTypes": {"Note": {"fields": {"n": {"type": "INT64", "queryable": "yes"}}}}}"#, "recordTypes.Note.fields.n.queryable"),
            (#"{"types": {}}"#, "recordTypes"),
        ] {
            let error = Self.readFailure(text)
            #expect(error?.reason.contains(place) == true, "\(String(describing: error))")
        }
    }
}
