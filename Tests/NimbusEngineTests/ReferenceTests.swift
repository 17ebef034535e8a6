//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

@Suite("reference actions")
struct ReferenceTests {
    private func referring(_ name: String, to target: String, _ action: Reference.Action) -> RecordOperation {
        var operation = RecordOperation.note(name)
        operation.fields["ref"] = FieldInput(.reference(Reference(recordName: target, action: action)))
        return operation
    }

    @Test("deleting a target deletes its DELETE_SELF referrers, transitively")
    func deleteSelfCascades() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("chat"))
            _ = try await f.save(referring("message", to: "chat", .deleteSelf))
            _ = try await f.save(referring("reaction", to: "message", .deleteSelf))
            _ = try await f.save(referring("bystander", to: "chat", .none))
            let results = try await f.modify([.note("chat", kind: .forceDelete)])
            #expect(results.first == .deleted(recordName: "chat", recordType: "Note"))
            #expect(try await f.lookup("message") == nil)
            #expect(try await f.lookup("reaction") == nil)
            #expect(try await f.lookup("bystander") != nil)
        }
    }

    @Test("a VALIDATE reference to a missing record is a VALIDATING_REFERENCE_ERROR")
    func validateMissingTarget() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let results = try await f.modify([referring("message", to: "nowhere", .validate)])
            #expect(results.first?.error?.code.serverErrorCode == "VALIDATING_REFERENCE_ERROR")
            #expect(try await f.lookup("message") == nil)
        }
    }

    @Test("a record with VALIDATE referrers cannot be deleted")
    func validateBlocksDelete() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("chat"))
            _ = try await f.save(referring("message", to: "chat", .validate))
            let results = try await f.modify([.note("chat", kind: .forceDelete)])
            #expect(results.first?.error?.code == .referenceViolation)
            #expect(try await f.lookup("chat") != nil)
        }
    }

    @Test("references to another zone are rejected")
    func crossZoneReference() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            var operation = RecordOperation.note("n1")
            operation.fields["ref"] = FieldInput(.reference(Reference(recordName: "x", zoneID: ZoneID(zoneName: "Other", ownerRecordName: ""))))
            let results = try await f.modify([operation])
            #expect(results.first?.error?.code == .badRequest)
        }
    }
}

@Suite("operation order and reference edge cases")
struct ReferenceOrderTests {
    private func referring(_ name: String, to target: String, _ action: Reference.Action, kind: RecordOperation.Kind = .create) -> RecordOperation {
        var operation = RecordOperation.note(name, kind: kind)
        operation.fields["ref"] = FieldInput(.reference(Reference(recordName: target, action: action)))
        return operation
    }

    @Test("updating a record that holds a VALIDATE reference does not re-check it")
    func updateKeepsValidateReference() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("chat"))
            let message = try await f.save(referring("message", to: "chat", .validate))
            let updated = try await f.modify([.note("message", ["title": .string("edited")], kind: .update, tag: message.recordChangeTag)])
            #expect(updated.first?.record?.fields["title"] == .string("edited"))
        }
    }

    @Test("writes apply in operation order: a record re-created after its cascade delete survives")
    func recreatedAfterCascade() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("a"))
            _ = try await f.save(referring("s", to: "a", .deleteSelf))
            let results = try await f.modify([.note("a", kind: .forceDelete), .note("s", ["title": .string("again")])])
            #expect(results[1].record != nil)
            #expect(try await f.lookup("s")?.fields["title"] == .string("again"))
            #expect(try await f.lookup("a") == nil)
        }
    }

    @Test("a cascade follows references a record gains earlier in the same batch")
    func cascadeThroughBatchReference() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("a"))
            _ = try await f.save(.note("c"))
            _ = try await f.save(referring("d", to: "c", .deleteSelf))
            _ = try await f.modify([referring("c", to: "a", .deleteSelf, kind: .forceUpdate), .note("a", kind: .forceDelete)])
            #expect(try await f.lookup("c") == nil)
            #expect(try await f.lookup("d") == nil)
        }
    }
}
