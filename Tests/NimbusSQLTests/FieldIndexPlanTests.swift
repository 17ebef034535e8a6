//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import NimbusStore
import Testing

@testable import NimbusSQL

@Suite("field indexes in the SQL store")
struct FieldIndexPlanTests {
    private static let tenant = Tenant(container: "c", environment: .development, owner: "_owner")

    @Test("the chat page query reads a range of the sort field's index backwards, with no sort of its matches")
    func chatPagePlan() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-field-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try await SQLStore.openSQLite(path: path, cipher: FieldCipher(keyBytes: Array(repeating: 3, count: 32))!)
        // Indexes are built by the store's run, which closing it ends.
        async let running: Void = store.run()
        let query = Query(
            recordType: "Message",
            filters: [
                Filter("chat", .equals, .reference(Reference(recordName: "chat-7"))),
                Filter("sent", .lessThan, .timestamp(500_000)),
            ],
            sortDescriptors: [SortDescriptor("sent", ascending: false)]
        )
        let request = RecordQuery(
            tenant: Self.tenant,
            zoneName: "Z",
            query: query,
            limit: 20,
            fieldTypes: ["chat": .reference, "sent": .timestamp]
        )
        var builder = QuerySQLBuilder(request: request, dialect: .sqlite)
        #expect(builder.parts == [.present], "the filter on the sort field leaves no record without it")
        let plan = { () async throws -> String in
            let (sql, binds) = try #require(try builder.build(.present))
            let connection = try SQLiteConnection(path: path, readOnly: true)
            defer { connection.close() }
            return try connection.query("EXPLAIN QUERY PLAN " + sql, binds).map { $0.string(3) }.joined(separator: "; ")
        }
        #expect(try await plan().contains("USE TEMP B-TREE FOR ORDER BY"), "without the index, every match is sorted")

        _ = try await store.query(request)
        await store.waitForFieldIndexes()
        #expect(try await store.fieldIndexNames().count == 1, "one index: the chat reference, then the sent time")
        let indexed = try await plan()
        #expect(indexed.contains("USING INDEX records_field_"), "\(indexed)")
        #expect(!indexed.contains("USE TEMP B-TREE FOR ORDER BY"), "\(indexed)")
        await store.close()
        await running
    }
}
