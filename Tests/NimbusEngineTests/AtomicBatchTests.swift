//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

@Suite("atomic batches")
struct AtomicBatchTests {
    @Test("in a custom zone an atomic batch with one failure applies nothing; the others report ATOMIC_ERROR")
    func atomicAllOrNothing() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("existing"))
            let results = try await f.modify([.note("new1"), .note("existing"), .note("new2")], atomic: true)
            #expect(results[0].error?.code == .atomicFailure)
            #expect(results[1].error?.code == .alreadyExists)
            #expect(results[2].error?.code == .atomicFailure)
            #expect(try await f.lookup("new1") == nil)
            #expect(try await f.lookup("new2") == nil)
        }
    }

    @Test("a non-atomic batch applies what it can")
    func nonAtomicPartial() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("existing"))
            let results = try await f.modify([.note("new1"), .note("existing")], atomic: false)
            #expect(results[0].record != nil)
            #expect(results[1].error?.code == .alreadyExists)
            #expect(try await f.lookup("new1") != nil)
        }
    }

    @Test("the default zone ignores atomic, as CloudKit does")
    func defaultZoneIsNotAtomic() async throws {
        try await EngineFixture.with { f in
            _ = try await f.save(.note("existing"), zone: ZoneID.defaultZoneName)
            let results = try await f.modify([.note("new1"), .note("existing")], zone: ZoneID.defaultZoneName, atomic: true)
            #expect(results[0].record != nil)
            #expect(try await f.lookup("new1", zone: ZoneID.defaultZoneName) != nil)
        }
    }
}
