//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusTestSupport
import Testing

@Suite("records/modify operation types")
struct RecordOperationTests {
    @Test("create saves a record with system fields and a change tag")
    func createSavesRecord() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let record = try await f.save(.note("n1", ["title": .string("hello")]))
            #expect(record.recordChangeTag.isEmpty == false)
            #expect(record.created.userRecordName == f.alice)
            #expect(record.created.timestamp == f.clock.milliseconds)
            #expect(try await f.lookup("n1")?.fields["title"] == .string("hello"))
        }
    }

    @Test("create of an existing record fails with EXISTS and keeps the record")
    func createExistingFails() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n1", ["title": .string("first")]))
            let results = try await f.modify([.note("n1", ["title": .string("second")])])
            #expect(results.first?.error?.code == .alreadyExists)
            #expect(try await f.lookup("n1")?.fields["title"] == .string("first"))
        }
    }

    @Test("a create without a name gets one from the server")
    func serverGeneratedName() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let record = try await f.save(.note(nil, ["title": .string("x")]))
            #expect(record.recordID.recordName == "rec-1")
            #expect(try await f.lookup("rec-1") != nil)
        }
    }

    @Test("update changes only the listed fields and needs the current tag")
    func updateMerges() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let first = try await f.save(.note("n1", ["title": .string("a"), "body": .string("b")]))
            let updated = try await f.save(.note("n1", ["title": .string("A")], kind: .update, tag: first.recordChangeTag))
            #expect(updated.fields == ["title": .string("A"), "body": .string("b")])
            #expect(updated.recordChangeTag != first.recordChangeTag)
            #expect(updated.created == first.created)
        }
    }

    @Test("a stale change tag gives CONFLICT with the server's record, and nothing changes")
    func staleTagConflicts() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let first = try await f.save(.note("n1", ["title": .string("a")]))
            let second = try await f.save(.note("n1", ["title": .string("b")], kind: .update, tag: first.recordChangeTag))
            for kind in [RecordOperation.Kind.update, .replace, .delete] {
                let results = try await f.modify([.note("n1", ["title": .string("stale")], kind: kind, tag: first.recordChangeTag)])
                let error = try #require(results.first?.error)
                #expect(error.code == .serverRecordChanged)
                #expect(error.serverRecord?.recordChangeTag == second.recordChangeTag)
                #expect(error.serverRecord?.fields["title"] == .string("b"))
            }
            #expect(try await f.lookup("n1")?.fields["title"] == .string("b"))
        }
    }

    @Test("update without a change tag is a BAD_REQUEST with Apple's reason")
    func updateNeedsTag() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n1", ["title": .string("a")]))
            let results = try await f.modify([.note("n1", ["title": .string("b")], kind: .update)])
            #expect(results.first?.error?.code == .badRequest)
            #expect(results.first?.error?.reason.contains("recordChangeTag") == true)
        }
    }

    @Test("replace drops the fields it does not list")
    func replaceDropsFields() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let first = try await f.save(.note("n1", ["title": .string("a"), "body": .string("b")]))
            let replaced = try await f.save(.note("n1", ["title": .string("A")], kind: .replace, tag: first.recordChangeTag))
            #expect(replaced.fields == ["title": .string("A")])
        }
    }

    @Test("forceUpdate and forceReplace ignore the tag and create missing records")
    func forceOperations() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n1", ["title": .string("created")], kind: .forceUpdate))
            _ = try await f.save(.note("n1", ["body": .string("b")], kind: .forceUpdate, tag: "stale"))
            #expect(try await f.lookup("n1")?.fields == ["title": .string("created"), "body": .string("b")])
            _ = try await f.save(.note("n2", ["title": .string("x")], kind: .forceReplace))
            _ = try await f.save(.note("n2", ["body": .string("y")], kind: .forceReplace, tag: "stale"))
            #expect(try await f.lookup("n2")?.fields == ["body": .string("y")])
        }
    }

    @Test("a batch of 180 saves (more than one INSERT statement holds) stores every record with its own tag")
    func largeBatch() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n5", ["index": .int64(-1)]))
            let operations: [RecordOperation] = (0..<180).map {
                .note("n\($0)", ["index": .int64(Int64($0))], kind: $0 == 5 ? .forceUpdate : .create)
            }
            let results = try await f.modify(operations, atomic: false)
            #expect(results.count == 180)
            #expect(results.allSatisfy { $0.error == nil }, "\(results.filter { $0.error != nil })")
            #expect(try await f.lookup("n5")?.fields["index"] == .int64(5))
            #expect(try await f.lookup("n179")?.fields["index"] == .int64(179))
            var tags: Set<String> = []
            for index in 0..<180 {
                let record = try #require(try await f.lookup("n\(index)"))
                tags.insert(record.recordChangeTag)
            }
            #expect(tags.count == 180)
            // The change feed holds each record once, in its latest version.
            let page = try await f.changes(after: nil, limit: 400)
            #expect(page.changes.count == 180)
        }
    }

    @Test("delete, delete without a tag, and forceDelete remove records; missing ones are NOT_FOUND")
    func deletes() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let n1 = try await f.save(.note("n1"))
            _ = try await f.save(.note("n2"))
            _ = try await f.save(.note("n3"))
            let results = try await f.modify(
                [
                    .note("n1", kind: .delete, tag: n1.recordChangeTag), .note("n2", kind: .delete), .note("n3", kind: .forceDelete),
                    .note("missing", kind: .forceDelete),
                ],
                atomic: false
            )
            #expect(results[0] == .deleted(recordName: "n1", recordType: "Note"))
            #expect(results[1] == .deleted(recordName: "n2", recordType: "Note"))
            #expect(results[2] == .deleted(recordName: "n3", recordType: "Note"))
            #expect(results[3].error?.code == .unknownItem)
            for name in ["n1", "n2", "n3"] { #expect(try await f.lookup(name) == nil) }
        }
    }

    @Test("operations apply in order: a later one sees an earlier one's record")
    func operationsInOrder() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let target = RecordOperation.note("target")
            var child = RecordOperation.note("child")
            child.fields["owner"] = FieldInput(.reference(Reference(recordName: "target", action: .validate)))
            let results = try await f.modify([target, child])
            #expect(results.allSatisfy { $0.record != nil })
        }
    }

    @Test("two operations on one record in a request are a BAD_REQUEST and write nothing")
    func duplicateRecordNames() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            await #expect(throws: NimbusError.self) {
                _ = try await f.modify([.note("n1"), .note("n1", kind: .forceUpdate)])
            }
            #expect(try await f.lookup("n1") == nil)
        }
    }

    @Test("more than 200 operations is a BAD_REQUEST naming the limit")
    func operationLimit() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let operations = (0...200).map { RecordOperation.note("n\($0)") }
            do {
                _ = try await f.modify(operations)
                Issue.record("expected the limit to be enforced")
            } catch let error as NimbusError {
                #expect(error.code.serverErrorCode == "BAD_REQUEST")
                #expect(error.reason.contains("200"))
            }
            #expect(try await f.lookup("n0") == nil)
        }
    }

    @Test("a record over 1 MB is rejected with BAD_REQUEST and not stored")
    func recordSizeLimit() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let big = String(repeating: "x", count: 1_100_000)
            let results = try await f.modify([.note("big", ["body": .string(big)])])
            #expect(results.first?.error?.code.serverErrorCode == "BAD_REQUEST")
            #expect(results.first?.error?.reason.contains("1 MB") == true)
            #expect(try await f.lookup("big") == nil)
        }
    }

    @Test("the parent field is stored, changed and cleared")
    func parentField() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("chat"))
            var message = RecordOperation.note("message")
            message.parent = .set("chat")
            let saved = try await f.save(message)
            #expect(saved.parentRecordName == "chat")
            var cleared = RecordOperation.note("message", kind: .update, tag: saved.recordChangeTag)
            cleared.parent = .clear
            #expect(try await f.save(cleared).parentRecordName == nil)
        }
    }
}

@Suite("time-ordered record names")
struct TimeOrderedUUIDTests {
    @Test("names are version 7 UUIDs that sort in creation order, also within one millisecond")
    func ordered() {
        let clock = ManualClock()
        let names = TimeOrderedUUID(clock: clock)
        var generated: [String] = []
        for index in 0..<5000 {
            if index.isMultiple(of: 1000) { clock.advance(by: .milliseconds(1)) }
            generated.append(names.next())
        }
        #expect(generated == generated.sorted())
        #expect(Set(generated).count == generated.count)
        let first = Array(generated[0])
        #expect(generated[0].count == 36 && first[14] == "7" && "89AB".contains(first[19]))
    }
}
