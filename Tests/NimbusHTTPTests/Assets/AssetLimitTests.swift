//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusEngine
import NimbusModel
import Testing

@Suite("assets: per-container limits and the owner's storage quota")
struct AssetLimitTests {
    @Test("a container's own asset limit replaces the server's, above or below it")
    func containerLimit() async throws {
        try await HTTPFixture.with(configure: { $0.assets.maximumSize = 1000 }) { f, client in
            let session = AssetSession(f: f, client: client)
            let path = try await session.uploadPath(record: "p1", field: "image", as: f.alice)
            try await session.uploadRaw(AssetSession.bytes(4000), to: path).expectError("BAD_REQUEST", status: .contentTooLarge)
            _ = try await f.instance.accounts.configureContainer(HTTPFixture.container, appURLScheme: nil, fallbackURL: nil, maximumAssetBytes: 5000)
            #expect(try await session.uploadRaw(AssetSession.bytes(4000), to: path).status == .ok)
            try await session.uploadMultipart(AssetSession.bytes(5001), to: path).expectError("BAD_REQUEST", status: .contentTooLarge)
            await #expect(throws: NimbusError.self) {
                _ = try await f.instance.accounts.configureContainer(
                    HTTPFixture.container,
                    appURLScheme: nil,
                    fallbackURL: nil,
                    maximumAssetBytes: 5_000_000_001
                )
            }
        }
    }

    @Test("asset bytes count against the owner's quota from upload to collection; over it, 413 QUOTA_EXCEEDED and nothing kept")
    func quota() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            _ = try await f.instance.accounts.configureContainer(HTTPFixture.container, appURLScheme: nil, fallbackURL: nil, userQuotaBytes: 10_000)
            try await session.saveRecord("first", bytes: AssetSession.bytes(6000), as: f.alice)
            let path = try await session.uploadPath(record: "second", field: "image", as: f.alice)
            // Said up front (a raw body's length): refused before it is read.
            try await session.uploadRaw(AssetSession.bytes(6000), to: path).expectError("QUOTA_EXCEEDED", status: .contentTooLarge)
            // Found on the way (a multipart body).
            try await session.uploadMultipart(AssetSession.bytes(6000), to: path).expectError("QUOTA_EXCEEDED", status: .contentTooLarge)
            #expect(session.storedBlobs().count == 1)
            #expect(try await f.database.inspect("SELECT COUNT(*) FROM assets") == "1")
            // Another user's quota is their own.
            try await session.saveRecord("bobs", bytes: AssetSession.bytes(6000), as: f.bob)

            // Deleted and collected, the first asset's bytes are Alice's again.
            _ = try await session.postOK(
                "records/modify",
                #"{"operations":[{"operationType":"delete","record":{"recordName":"first"}}]}"#,
                as: f.alice
            )
            f.clock.advance(by: .seconds(24 * 60 * 60 + 1))
            await f.waitForIdleLoops()
            _ = try await f.instance.assets.collect()
            let again = try await session.uploadPath(record: "second", field: "image", as: f.alice)
            #expect(try await session.uploadRaw(AssetSession.bytes(6000), to: again).status == .ok)
        }
    }
}
