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
