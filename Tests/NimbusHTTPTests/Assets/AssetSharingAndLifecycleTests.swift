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

@Suite("assets: in shared zones, and their lifetime")
struct AssetSharingAndLifecycleTests {
    /// Alice shares a new `Chats` zone's root `chat` with `guest`, who accepts.
    private func shareChats(_ session: AssetSession, with guest: AssetSession.User, permission: String) async throws {
        let f = session.f
        _ = try await session.postOK(
            "zones/modify",
            #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Chats"}}}]}"#,
            as: f.alice
        )
        let saved = try await session.postOK(
            "records/modify",
            #"""
            {"zoneID":{"zoneName":"Chats"},"operations":[
              {"operationType":"create","record":{"recordName":"chat","recordType":"Chat"}},
              {"operationType":"create","record":{"recordName":"share","recordType":"cloudkit.share","forRecord":{"recordName":"chat"},
                "participants":[{"type":"USER","permission":"\#(permission)","userIdentity":{"lookupInfo":{"userRecordName":"\#(guest.user.userRecordName)"}}}]}}]}
            """#,
            as: f.alice
        )
        let guid = try #require((saved["records"] as? [[String: Any]])?.last?["shortGUID"] as? String)
        _ = try await session.postOK("records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, as: guest, scope: "public")
    }

    @Test("a read-write participant uploads into the shared chat and the owner downloads it; read-only and strangers get no upload URL")
    func sharedZone() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            try await shareChats(session, with: f.bob, permission: "READ_WRITE")
            let owner = f.alice.user.userRecordName
            let path = try await session.uploadPath(record: "m1", field: "picture", zone: "Chats", owner: owner, as: f.bob, scope: "shared")
            let bytes = AssetSession.bytes(5000)
            let single = try AssetSession.singleFile(try await session.uploadRaw(bytes, to: path))
            let saved = try await session.postOK(
                "records/modify",
                #"{"zoneID":{"zoneName":"Chats","ownerRecordName":"\#(owner)"},"operations":[{"operationType":"create","record":{"recordName":"m1","recordType":"Message","parent":{"recordName":"chat"},"fields":{"picture":{"value":\#(single.json)}}}}]}"#,
                as: f.bob,
                scope: "shared"
            )
            #expect((saved["records"] as? [[String: Any]])?.first?["serverErrorCode"] == nil, "\(saved)")
            let lookup = try await session.postOK(
                "records/lookup",
                #"{"zoneID":{"zoneName":"Chats"},"records":[{"recordName":"m1"}]}"#,
                as: f.alice
            )
            let asset = AssetSession.asset(try #require((lookup["records"] as? [[String: Any]])?.first), field: "picture")
            #expect(Array(try await session.download(try AssetSession.downloadPath(asset)).body.readableBytesView) == bytes)

            // A stranger to the zone is told it does not exist.
            let carol = try await f.instance.accounts.addUser(name: "Carol", email: nil, phone: nil, container: HTTPFixture.container)
            try await session.post(
                "assets/upload",
                #"{"zoneID":{"zoneName":"Chats","ownerRecordName":"\#(owner)"},"tokens":[{"fieldName":"picture"}]}"#,
                as: carol,
                scope: "shared"
            ).expectError("ZONE_NOT_FOUND", status: .notFound)
        }
    }

    @Test("a read-only participant gets no upload URL")
    func readOnly() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            try await shareChats(session, with: f.bob, permission: "READ_ONLY")
            try await session.post(
                "assets/upload",
                #"{"zoneID":{"zoneName":"Chats","ownerRecordName":"\#(f.alice.user.userRecordName)"},"tokens":[{"fieldName":"picture"}]}"#,
                as: f.bob,
                scope: "shared"
            ).expectError("ZONE_NOT_FOUND", status: .notFound)
        }
    }

    @Test("the collector removes exactly the assets no record references once they are past the retention")
    func collector() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            try await session.saveRecord("kept", bytes: AssetSession.bytes(100, seed: 1), as: f.alice)
            try await session.saveRecord("deleted", bytes: AssetSession.bytes(100, seed: 2), as: f.alice)
            let replaced = try await session.saveRecord("replaced", bytes: AssetSession.bytes(100, seed: 3), as: f.alice)
            // Never saved with a record.
            let orphanPath = try await session.uploadPath(record: "never", field: "image", as: f.alice)
            _ = try AssetSession.singleFile(try await session.uploadRaw(AssetSession.bytes(100, seed: 4), to: orphanPath))
            _ = try await session.postOK(
                "records/modify",
                #"{"operations":[{"operationType":"delete","record":{"recordName":"deleted"}}]}"#,
                as: f.alice
            )
            // `replaced` gets a new picture; its old one is no longer referenced.
            let newPath = try await session.uploadPath(record: "replaced", field: "image", as: f.alice)
            let newSingle = try AssetSession.singleFile(try await session.uploadRaw(AssetSession.bytes(100, seed: 5), to: newPath))
            let tag = try #require(replaced["recordChangeTag"] as? String)
            _ = try await session.postOK(
                "records/modify",
                #"{"operations":[{"operationType":"update","record":{"recordName":"replaced","recordType":"Photo","recordChangeTag":"\#(tag)","fields":{"image":{"value":\#(newSingle.json)}}}}]}"#,
                as: f.alice
            )
            // A zone deleted takes its records' assets with it.
            _ = try await session.postOK(
                "zones/modify",
                #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Album"}}}]}"#,
                as: f.alice
            )
            let albumPath = try await session.uploadPath(record: "a1", field: "image", zone: "Album", as: f.alice)
            let albumSingle = try AssetSession.singleFile(try await session.uploadRaw(AssetSession.bytes(100, seed: 6), to: albumPath))
            _ = try await session.postOK(
                "records/modify",
                #"{"zoneID":{"zoneName":"Album"},"operations":[{"operationType":"create","record":{"recordName":"a1","recordType":"Photo","fields":{"image":{"value":\#(albumSingle.json)}}}}]}"#,
                as: f.alice
            )
            _ = try await session.postOK(
                "zones/modify",
                #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Album"}}}]}"#,
                as: f.alice
            )
            #expect(session.storedBlobs().count == 6)

            // Within the retention nothing goes, referenced or not.
            #expect(try await f.instance.assets.collect() == 0)
            // Past it, the server's hourly collector wakes too: whichever pass removes them,
            // what is left is exactly the referenced assets.
            f.clock.advance(by: .seconds(24 * 60 * 60 + 1))
            await f.waitForIdleLoops()
            _ = try await f.instance.assets.collect()
            #expect(session.storedBlobs().count == 2)
            #expect(try await f.database.inspect("SELECT COUNT(*) FROM assets") == "2")
            for name in ["kept", "replaced"] {
                let lookup = try await session.postOK("records/lookup", #"{"records":[{"recordName":"\#(name)"}]}"#, as: f.alice)
                let asset = AssetSession.asset(try #require((lookup["records"] as? [[String: Any]])?.first))
                #expect(try await session.download(try AssetSession.downloadPath(asset)).status == .ok, "\(name)")
            }
        }
    }
}
