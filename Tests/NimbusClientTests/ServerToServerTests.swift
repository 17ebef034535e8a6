//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import NimbusClient
import NimbusModel
import Testing

@Suite("NimbusClient: server-to-server keys against a live server", .timeLimit(.minutes(2)))
struct ServerToServerTests {
    @Test("requests signed with a registered key reach the public database; an unregistered key is refused")
    func signedRequests() async throws {
        try await ClientFixture.with { f in
            let key = P256.Signing.PrivateKey()
            let keyID = try await f.instance.accounts.addServerKey(
                publicKeyPEM: key.publicKey.pemRepresentation,
                container: ClientFixture.containerID
            )
            let container = Container(
                serverURL: f.url,
                identifier: ClientFixture.containerID,
                authentication: .serverToServer(keyID: keyID, privateKey: key),
                transport: f.transport
            )
            let defaultZone = ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")
            let saved = try await container.publicCloudDatabase.save(.note("announcement", in: defaultZone, ["title": .string("hello")]))
            #expect(saved.fields["title"] == .string("hello"))
            // Users read what the key wrote.
            let read = try await f.container(as: f.bob).publicCloudDatabase.record(named: "announcement", in: defaultZone)
            #expect(read.recordChangeTag == saved.recordChangeTag)

            let impostor = Container(
                serverURL: f.url,
                identifier: ClientFixture.containerID,
                authentication: .serverToServer(keyID: keyID, privateKey: P256.Signing.PrivateKey()),
                transport: f.transport,
                retryPolicy: .never
            )
            let error = try await #require(throws: NimbusError.self) {
                try await impostor.publicCloudDatabase.record(named: "announcement", in: defaultZone)
            }
            #expect(error.code == .authenticationFailed)
        }
    }
}
