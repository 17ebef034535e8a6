//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NimbusEngine
import Testing

@Suite("assets: bad input is a clear 4xx and keeps nothing")
struct AssetRefusalTests {
    @Test("a receipt redeemed for another record or field, a tampered receipt, none at all, a wrong checksum: 400, nothing saved")
    func receipts() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            let path = try await session.uploadPath(record: "p1", field: "image", as: f.alice)
            let single = try AssetSession.singleFile(try await session.uploadRaw(AssetSession.bytes(1000), to: path))
            let receipt = try #require(single.fields["receipt"] as? String)
            let checksum = try #require(single.fields["fileChecksum"] as? String)
            var tampered = Array(receipt)
            tampered[5] = tampered[5] == "A" ? "B" : "A"
            let cases: [(record: String, field: String, value: String)] = [
                ("p2", "image", single.json),
                ("p1", "thumbnail", single.json),
                ("p1", "image", #"{"fileChecksum":"\#(checksum)","size":1000,"receipt":"\#(String(tampered))"}"#),
                ("p1", "image", #"{"fileChecksum":"\#(checksum)","size":1000}"#),
                ("p1", "image", #"{"fileChecksum":"AAAA","size":1000,"receipt":"\#(receipt)"}"#),
            ]
            for item in cases {
                let response = try await session.post(
                    "records/modify",
                    #"{"operations":[{"operationType":"create","record":{"recordName":"\#(item.record)","recordType":"Photo","fields":{"\#(item.field)":{"value":\#(item.value)}}}}]}"#,
                    as: f.alice
                )
                let result = try #require((try response.json["records"] as? [[String: Any]])?.first)
                #expect(result["serverErrorCode"] as? String == "BAD_REQUEST", "\(item.record).\(item.field): \(result)")
                #expect(await !f.recordExists(item.record, zone: "_defaultZone", user: f.alice))
            }
            // The receipt is Alice's zone's: Bob cannot use it in his.
            let bobs = try await session.post(
                "records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordName":"p1","recordType":"Photo","fields":{"image":{"value":\#(single.json)}}}}]}"#,
                as: f.bob
            )
            #expect((try bobs.json["records"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "BAD_REQUEST")
        }
    }

    @Test("an upload URL tampered with or expired, and a download URL tampered with or expired: the same 404")
    func urls() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            let path = try await session.uploadPath(record: "p1", field: "image", as: f.alice)
            var forged = Array(path)
            forged[forged.count - 3] = forged[forged.count - 3] == "A" ? "B" : "A"
            try await session.uploadRaw(AssetSession.bytes(10), to: String(forged)).expectError("NOT_FOUND", status: .notFound)
            let saved = try await session.saveRecord("p2", bytes: AssetSession.bytes(10), as: f.alice)
            let download = try AssetSession.downloadPath(AssetSession.asset(saved))
            var forgedDownload = Array(download)
            forgedDownload[30] = forgedDownload[30] == "A" ? "B" : "A"
            try await session.download(String(forgedDownload)).expectError("NOT_FOUND", status: .notFound)
            #expect(try await session.download(download).status == .ok)

            f.clock.advance(by: .seconds(16 * 60))
            try await session.uploadRaw(AssetSession.bytes(10), to: path).expectError("NOT_FOUND", status: .notFound)
            f.clock.advance(by: .seconds(60 * 60))
            try await session.download(download).expectError("NOT_FOUND", status: .notFound)
            #expect(session.storedBlobs().count == 1)
        }
    }

    @Test("an asset over the limit is a 413 in the CloudKit shape, whether it says so or not, and nothing is kept")
    func tooLarge() async throws {
        try await HTTPFixture.with(configure: { $0.assets.maximumSize = 100_000 }) { f, client in
            let session = AssetSession(f: f, client: client)
            let path = try await session.uploadPath(record: "p1", field: "image", as: f.alice)
            try await session.uploadRaw(AssetSession.bytes(100_001), to: path).expectError("BAD_REQUEST", status: .contentTooLarge)
            try await session.uploadMultipart(AssetSession.bytes(100_001), to: path).expectError("BAD_REQUEST", status: .contentTooLarge)
            #expect(session.storedBlobs().isEmpty)
            let incoming = try FileManager.default.contentsOfDirectory(atPath: f.directory.appendingPathComponent("assets/incoming").path)
            #expect(incoming.isEmpty)
            // At the limit it is taken.
            #expect(try await session.uploadRaw(AssetSession.bytes(100_000), to: path).status == .ok)
        }
    }

    @Test("asking for upload URLs: no tokens, too many, a bad field name, another's zone, no user: 4xx")
    func uploadRequests() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            try await session.post("assets/upload", #"{"tokens":[]}"#, as: f.alice).expectError("BAD_REQUEST", status: .badRequest)
            let many = Array(repeating: #"{"fieldName":"image"}"#, count: 201).joined(separator: ",")
            try await session.post("assets/upload", #"{"tokens":[\#(many)]}"#, as: f.alice).expectError("BAD_REQUEST", status: .badRequest)
            try await session.post("assets/upload", #"{"tokens":[{"fieldName":"no spaces"}]}"#, as: f.alice)
                .expectError("BAD_REQUEST", status: .badRequest)
            try await session.post("assets/upload", #"{"tokens":[{"recordName":"x"}]}"#, as: f.alice)
                .expectError("BAD_REQUEST", status: .badRequest)
            try await session.post("assets/upload", #"{"zoneID":{"zoneName":"Nowhere"},"tokens":[{"fieldName":"image"}]}"#, as: f.alice)
                .expectError("ZONE_NOT_FOUND", status: .notFound)
            let anonymous = try await client.send(.post, f.path("assets/upload", scope: "private"), json: #"{"tokens":[{"fieldName":"image"}]}"#)
            try anonymous.expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
            // A record name left out is made up, as CloudKit does.
            let made = try await session.postOK("assets/upload", #"{"tokens":[{"fieldName":"image"}]}"#, as: f.alice)
            #expect(((made["tokens"] as? [[String: Any]])?.first?["recordName"] as? String)?.isEmpty == false)
        }
    }
}
