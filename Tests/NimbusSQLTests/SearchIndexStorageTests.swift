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

@Suite("the token search index in the SQL store")
struct SearchIndexStorageTests {
    private static let tenant = Tenant(container: "c", environment: .development, owner: "_owner")

    private static func withDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-search-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("store.sqlite").path)
    }

    private static let cipher = FieldCipher(keyBytes: Array(repeating: 3, count: 32))!

    private static func openStore(at path: String) async throws -> SQLStore {
        try await SQLStore.openSQLite(path: path, cipher: cipher)
    }

    private static func search(_ store: SQLStore, _ field: String, _ text: String) async throws -> [String] {
        let query = Query(recordType: "Note", filters: [Filter(field, .containsAllTokens, .string(text))])
        return try await store.query(RecordQuery(tenant: tenant, zoneName: "Z", query: query, limit: 100)).map(\.recordID.recordName).sorted()
    }

    @Test("upgrading to token search indexes the records already stored, live ones only")
    func upgradeIndexesStoredRecords() async throws {
        try await Self.withDirectory { path in
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try await SQLMigrations.migrate(connection, dialect: .sqlite, through: 14)
            try connection.executeScript(
                """
                INSERT INTO zones (container, environment, owner, zone_name, change_counter, incarnation, is_deleted, created_at)
                VALUES ('c', 'development', '_owner', 'Z', 3, 1, 0, 1);
                INSERT INTO records (container, environment, owner, zone_name, record_name, record_type, change_counter,
                    change_tag, parent_name, fields, encrypted_fields, created_at, created_by, created_device,
                    modified_at, modified_by, modified_device, is_deleted)
                VALUES
                    ('c', 'development', '_owner', 'Z', 'old', 'Note', 1, '1', NULL,
                        '{"title": {"value": "Crème brûlée recipe", "type": "STRING"}}', NULL, 1, 'u', '1', 1, 'u', '1', 0),
                    ('c', 'development', '_owner', 'Z', 'number', 'Note', 2, '2', NULL,
                        '{"count": {"value": 3, "type": "INT64"}}', NULL, 1, 'u', '1', 1, 'u', '1', 0),
                    ('c', 'development', '_owner', 'Z', 'dead', 'Note', 3, '3', NULL, '{}', NULL, 1, 'u', '1', 1, 'u', '1', 1);
                """
            )
            connection.close()

            let store = try await Self.openStore(at: path)
            #expect(try await Self.search(store, "title", "creme BRULEE") == ["old"])
            #expect(try await Self.search(store, Filter.allTokensField, "recipe") == ["old"])
            #expect(try await Self.search(store, "count", "3").isEmpty, "only string fields are indexed")
            await store.close()
        }
    }

    private static func note(_ name: String, title: String) -> Record {
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_owner")
        return Record(recordType: "Note", recordID: RecordID(recordName: name, zoneID: zoneID), fields: ["title": .string(title)])
    }

    /// FTS5's own check that the index holds exactly the documents of `records` (at rank 1,
    /// which compares the index with its content table), and the changes still queued for it.
    private static func checkIndex(at path: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        defer { connection.close() }
        try connection.executeScript("INSERT INTO record_search (record_search, rank) VALUES ('integrity-check', 1)")
        return try connection.query("SELECT count(*) FROM search_index_queue", []).first?.int(0) ?? -1
    }

    /// How many documents the index itself holds with `word`: entries whose record is gone or
    /// changed count here, where a query through `records` would not show them.
    private static func indexed(_ word: String, at path: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        defer { connection.close() }
        return try connection.query("SELECT count(*) FROM record_search WHERE record_search MATCH ?", [.text(word)]).first?.int(0) ?? -1
    }

    @Test("writers sharing commits keep the index in step with their records, failing ones included")
    func sharedCommits() async throws {
        try await Self.withDirectory { path in
            let store = try await Self.openStore(at: path)
            _ = try await store.createZone(named: "Z", of: Self.tenant)
            _ = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                _ = try await transaction.save((0..<10).map { Self.note("s\($0)", title: "alpha \($0)") })
                _ = try await transaction.save((0..<10).map { Self.note("t\($0)", title: "delta \($0)") })
            }
            struct Refused: Error {}
            // Thirty writers at once share group commits: a third add a record and fail, a third
            // change a record's words, a third delete one.
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<30 {
                    group.addTask {
                        _ = try? await store.write(zone: "Z", of: Self.tenant) { transaction in
                            switch index % 3 {
                            case 0:
                                _ = try await transaction.save([Self.note("n\(index)", title: "beta")])
                                throw Refused()
                            case 1:
                                _ = try await transaction.save([Self.note("s\(index / 3)", title: "gamma")])
                            default:
                                try await transaction.delete([Tombstone(recordName: "t\(index / 3)", recordType: "Note")])
                            }
                        }
                    }
                }
            }
            #expect(try await Self.search(store, "title", "gamma") == (0..<10).map { "s\($0)" }.sorted())
            #expect(try await Self.search(store, "title", "alpha").isEmpty, "a changed record's old words left the index")
            #expect(try await Self.search(store, "title", "delta").isEmpty, "a deleted record left the index")
            #expect(try await Self.search(store, "title", "beta").isEmpty, "a failed writer's record never reached the index")
            await store.close()
            #expect(try Self.checkIndex(at: path) == 0, "closing the store replays the whole queue")
            #expect(try Self.indexed("gamma", at: path) == 10)
            for word in ["alpha", "delta", "beta"] {
                #expect(try Self.indexed(word, at: path) == 0, "\(word) left the index itself")
            }
        }
    }

    /// The changes waiting in the index's queue, read beside a running store.
    private static func queued(at path: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        defer { connection.close() }
        return try connection.query("SELECT count(*) FROM search_index_queue", []).first?.int(0) ?? -1
    }

    private static func searchAny(_ store: SQLStore, _ text: String) async throws -> [String] {
        let query = Query(recordType: "Note", filters: [Filter(Filter.allTokensField, .containsAnyTokens, .string(text))])
        return try await store.query(RecordQuery(tenant: tenant, zoneName: "Z", query: query, limit: 100)).map(\.recordID.recordName).sorted()
    }

    @Test("a token search finds what waits in the index's queue, and the queue is replayed many changes at a time")
    func searchReadsTheQueue() async throws {
        try await Self.withDirectory { path in
            let store = try await Self.openStore(at: path)
            _ = try await store.createZone(named: "Z", of: Self.tenant)
            _ = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                _ = try await transaction.save([Self.note("kept", title: "older words")])
            }
            try await store.write(zone: "Z", of: Self.tenant) { transaction in
                try await SearchIndexQueue.apply(on: try #require(transaction as? SQLZoneTransaction).connection)
            }
            // One save per commit: each stays queued, and searches still find it.
            for (name, title) in [("a", "first words"), ("b", "second words"), ("c", "third thing")] {
                _ = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                    _ = try await transaction.save([Self.note(name, title: title)])
                }
            }
            #expect(try Self.queued(at: path) == 3, "a commit with few changes leaves them queued")
            #expect(try Self.indexed("words", at: path) == 1, "the index itself holds only the replayed record")
            #expect(try await Self.search(store, "title", "words") == ["a", "b", "kept"])
            #expect(try await Self.search(store, "title", "second words") == ["b"])
            #expect(try await Self.searchAny(store, "third older") == ["c", "kept"])
            // A replayed record changed and a queued one deleted: the index still holds the
            // first's old words and the second's, and neither may be found by them.
            _ = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                _ = try await transaction.save([Self.note("kept", title: "newer thing")])
                try await transaction.delete([Tombstone(recordName: "a", recordType: "Note")])
            }
            #expect(try await Self.search(store, "title", "words") == ["b"])
            #expect(try await Self.search(store, "title", "older").isEmpty)
            #expect(try await Self.searchAny(store, "thing") == ["c", "kept"])
            #expect(try await Self.search(store, "title", "newer") == ["kept"])
            // Enough changes make the next commit replay them all.
            for index in 0..<SearchIndexQueue.replayThreshold {
                _ = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                    _ = try await transaction.save([Self.note("n\(index)", title: "bulk \(index)")])
                }
            }
            let left = try Self.queued(at: path)
            #expect(left < Int64(SearchIndexQueue.replayThreshold), "\(left) changes still queued")
            #expect(try Self.indexed("bulk", at: path) >= 1, "replayed changes reached the index")
            #expect(try await Self.search(store, "title", "bulk").count == SearchIndexQueue.replayThreshold)
            #expect(try await Self.search(store, "title", "words") == ["b"])
            await store.close()
            #expect(try Self.checkIndex(at: path) == 0)
            #expect(try Self.indexed("older", at: path) == 0)
        }
    }

    @Test("the index merges its segments once four pile up, so a search reads few")
    func fewSegments() async throws {
        try await Self.withDirectory { path in
            let store = try await Self.openStore(at: path)
            _ = try await store.createZone(named: "Z", of: Self.tenant)
            // Each write replays the queue: it holds more than the threshold.
            var most: Int64 = 0
            for batch in 0..<20 {
                _ = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                    _ = try await transaction.save(
                        (0..<SearchIndexQueue.replayThreshold).map { Self.note("b\(batch)-\($0)", title: "batch\(batch) item\($0)") }
                    )
                }
                let connection = try SQLiteConnection(path: path, readOnly: true)
                let segments = try connection.query("SELECT count(DISTINCT segid) FROM record_search_idx", []).first?.int(0) ?? -1
                connection.close()
                most = max(most, segments)
            }
            // FTS5 merges once a level holds four, so one more may stand for a moment; by default
            // twenty replays would have piled up sixteen.
            #expect(most <= 5, "the index held \(most) segments")
            #expect(try await Self.search(store, "title", "batch7 item3") == ["b7-3"])
            await store.close()
            #expect(try Self.checkIndex(at: path) == 0)
        }
    }

    @Test("a record written, rewritten and deleted in one transaction leaves the index as if never written")
    func rewrittenInOneTransaction() async throws {
        try await Self.withDirectory { path in
            let store = try await Self.openStore(at: path)
            _ = try await store.createZone(named: "Z", of: Self.tenant)
            _ = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                _ = try await transaction.save([Self.note("x", title: "common one"), Self.note("y", title: "common three")])
                _ = try await transaction.save([Self.note("x", title: "common two")])
                try await transaction.delete([Tombstone(recordName: "x", recordType: "Note")])
            }
            #expect(try await Self.search(store, "title", "common") == ["y"])
            await store.close()
            #expect(try Self.checkIndex(at: path) == 0)
            #expect(try Self.indexed("common", at: path) == 1)
            #expect(try Self.indexed("one", at: path) == 0)
            #expect(try Self.indexed("two", at: path) == 0)
            #expect(try Self.indexed("three", at: path) == 1)
        }
    }

    @Test("a notification rule's token lookup in the writer finds what the same commit wrote")
    func ruleLookupInTheWriter() async throws {
        try await Self.withDirectory { path in
            let store = try await Self.openStore(at: path)
            _ = try await store.createZone(named: "Z", of: Self.tenant)
            let found = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                try await transaction.addFields(
                    ["title": FieldSchema(type: .string, isEncrypted: false, isSearchable: true)],
                    toRecordType: "Note"
                )
                _ = try await transaction.save([Self.note("fresh", title: "written moments ago")])
                // The dispatcher's lookups run on the same connection, before the group commits.
                let zoneTransaction = try #require(transaction as? SQLZoneTransaction)
                let rules = SQLNotificationTransaction(
                    connection: zoneTransaction.connection,
                    dialect: .sqlite,
                    cipher: Self.cipher,
                    now: 0,
                    turn: "1 = 1"
                )
                let query = Query(recordType: "Note", filters: [Filter("title", .containsAllTokens, .string("moments"))])
                return try await rules.firstRecord(matching: query, inZone: "Z", of: Self.tenant)?.recordID.recordName
            }
            #expect(found == "fresh")
            await store.close()
            #expect(try Self.checkIndex(at: path) == 0)
        }
    }

    @Test("upgrading to the queued index keeps what the index held, and indexes later writes")
    func upgradeToQueue() async throws {
        try await Self.withDirectory { path in
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try await SQLMigrations.migrate(connection, dialect: .sqlite, through: 15)
            let document = try #require(SearchTokens.document(of: ["title": .string("Old words")]))
            try connection.executeScript(
                """
                INSERT INTO zones (container, environment, owner, zone_name, change_counter, incarnation, is_deleted, created_at)
                VALUES ('c', 'development', '_owner', 'Z', 1, 1, 0, 1);
                INSERT INTO records (container, environment, owner, zone_name, record_name, record_type, change_counter,
                    change_tag, parent_name, fields, encrypted_fields, created_at, created_by, created_device,
                    modified_at, modified_by, modified_device, is_deleted, search_document)
                VALUES ('c', 'development', '_owner', 'Z', 'old', 'Note', 1, '1', NULL,
                    '{"title": {"value": "Old words", "type": "STRING"}}', NULL, 1, 'u', '1', 1, 'u', '1', 0, '\(document)');
                """
            )
            connection.close()

            let store = try await Self.openStore(at: path)
            #expect(try await Self.search(store, "title", "old") == ["old"])
            _ = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                try await transaction.save([Self.note("old", title: "Renamed"), Self.note("new", title: "Fresh words")])
            }
            #expect(try await Self.search(store, "title", "words") == ["new"])
            #expect(try await Self.search(store, "title", "renamed") == ["old"])
            await store.close()
            #expect(try Self.checkIndex(at: path) == 0)
        }
    }

    @Test("a token query reads the FTS index, not every record")
    func queryPlan() async throws {
        try await Self.withDirectory { path in
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try await SQLMigrations.migrate(connection, dialect: .sqlite)
            let query = Query(recordType: "Note", filters: [Filter("title", .containsAnyTokens, .string("brulee recipe"))])
            var builder = QuerySQLBuilder(request: RecordQuery(tenant: Self.tenant, zoneName: "Z", query: query, limit: 10), dialect: .sqlite)
            let (sql, binds) = try builder.build()
            let plan = try connection.query("EXPLAIN QUERY PLAN " + sql, binds).map { $0.string(3) }.joined(separator: "; ")
            #expect(plan.contains("VIRTUAL TABLE INDEX"), "\(plan)")
            #expect(!plan.contains("SCAN records"), "\(plan)")
            connection.close()
        }
    }

    @Test("ASCII text is tokenized as Unicode's rules tokenize it")
    func asciiTokens() {
        // Every ASCII byte, in runs and alone, and words around the length limit.
        let every = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        var texts = [every, "", " ", "Hello, World! 42fois", "MiXeD-case_with.punct;uation", "a1b2 C3d4\tE5\nf6"]
        texts += [63, 64, 65, 130].map { String(repeating: "Ab9", count: $0 / 3 + 1) }
        for seed in 0..<200 {
            let bytes: [UInt8] = (0..<(seed % 40)).map { (position: Int) -> UInt8 in UInt8((position * 37 + seed * 11) % 128) }
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        for text in texts {
            #expect(SearchTokens.asciiTokens(of: text) == SearchTokens.unicodeTokens(of: text), "\(text.debugDescription)")
        }
        #expect(SearchTokens.asciiTokens(of: "Ça va") == nil)
    }

    @Test("tokens: letters and digits, folded; a document keeps each word bare and by field, once")
    func tokens() {
        #expect(SearchTokens.tokens(of: "Ça va? Très bien, 42fois!") == ["ca", "va", "tres", "bien", "42fois"])
        #expect(SearchTokens.tokens(of: String(repeating: "a", count: 100)) == [String(repeating: "a", count: 64)])
        let document = SearchTokens.document(of: [
            "b": .string("Hello hello"), "a": .list(elementType: .string, [.string("hello")]), "n": .int64(1),
        ])
        #expect(document == "hello 61xhello 62xhello")
        #expect(SearchTokens.document(of: ["n": .int64(1)]) == nil)
        // A megabyte of distinct words stays within what PostgreSQL's tsvector holds.
        let huge = (0..<20_000).map { String(repeating: "w", count: 50) + "\($0)" }.joined(separator: " ")
        let capped = SearchTokens.document(of: ["a": .string(huge), "b": .string(huge)]) ?? ""
        #expect(capped.utf8.count <= SearchTokens.maximumDocumentBytes && capped.utf8.count > SearchTokens.maximumDocumentBytes / 2)
    }
}
