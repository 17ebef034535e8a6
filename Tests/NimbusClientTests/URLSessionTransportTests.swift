//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusClient
import NimbusModel
import Testing

@Suite("NimbusClient: the URLSession transport against a live server", .timeLimit(.minutes(2)))
struct URLSessionTransportTests {
    @Test("saves, reads, queries and conflicts arrive as over AsyncHTTPClient; a server that is not there is networkUnavailable")
    func roundTrips() async throws {
        try await ClientFixture.with(over: [.loopback]) { f in
            let container = Container(
                serverURL: f.url,
                identifier: ClientFixture.containerID,
                authentication: .apiToken(f.apiToken, webAuthToken: f.alice.webAuthToken),
                transport: URLSessionTransport()
            )
            let database = container.privateCloudDatabase
            let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")
            try await database.save(zones: [notes])
            let saved = try await database.save(.note("n1", in: notes, ["title": .string("first")]))
            #expect(try await database.record(named: "n1", in: notes).fields["title"] == .string("first"))
            #expect(try await database.count(matching: Query(recordType: "Note"), in: notes) == 1)

            var edited = saved
            edited.fields["title"] = .string("second")
            _ = try await database.save(edited)
            let error = try await #require(throws: NimbusError.self) { try await database.save(saved) }
            #expect(error.code == .serverRecordChanged && error.serverRecord?.fields["title"] == .string("second"))

            let nowhere = Container(
                serverURL: "http://127.0.0.1:9",
                identifier: ClientFixture.containerID,
                authentication: .apiToken(f.apiToken, webAuthToken: f.alice.webAuthToken),
                transport: URLSessionTransport(timeout: .seconds(5))
            )
            let unreachable = try await #require(throws: NimbusError.self) { try await nowhere.privateCloudDatabase.allZones() }
            #expect(unreachable.code == .networkUnavailable, "\(unreachable)")
        }
    }
}
