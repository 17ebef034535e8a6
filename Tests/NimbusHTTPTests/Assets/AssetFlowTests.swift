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

@Suite("assets: upload, save, read back and download over the CKWS flow")
struct AssetFlowTests {
    @Test(
        "raw upload, save, lookup with a downloadURL, download whole, by ranges, and revalidated with its ETag",
        arguments: AssetBlobStoreTests.Kind.allCases
    )
    func rawUploadAndDownload(_ kind: AssetBlobStoreTests.Kind) async throws {
        try await AssetSession.withFixture(kind) { f, client in
            let session = AssetSession(f: f, client: client)
            // Three chunks and a bit, so ranges cross chunk boundaries.
            let bytes = AssetSession.bytes(200_000)
            let path = try await session.uploadPath(record: "p1", field: "image", as: f.alice)
            let single = try AssetSession.singleFile(try await session.uploadRaw(bytes, to: path))
            #expect(AssetSession.isChecksum(single.fields["fileChecksum"]))
            #expect(single.fields["size"] as? Int == bytes.count)
            #expect(single.fields["receipt"] as? String != nil)

            let saved = try await session.saveRecordWith(single.json, record: "p1", as: f.alice)
            #expect(AssetSession.asset(saved)?["receipt"] == nil && AssetSession.asset(saved)?["assetID"] == nil)
            let lookup = try await session.postOK("records/lookup", #"{"records":[{"recordName":"p1"}]}"#, as: f.alice)
            let record = try #require((lookup["records"] as? [[String: Any]])?.first)
            let asset = try #require(AssetSession.asset(record))
            #expect(asset["fileChecksum"] as? String == single.fields["fileChecksum"] as? String)
            #expect(asset["size"] as? Int == bytes.count)
            #expect(asset["receipt"] == nil && asset["assetID"] == nil)

            let download = try AssetSession.downloadPath(asset, name: "holiday.png")
            let whole = try await session.download(download)
            #expect(whole.status == .ok)
            #expect(Array(whole.body.readableBytesView) == bytes)
            #expect(whole.headers[.contentType] == "image/png")
            #expect(whole.headers[.acceptRanges] == "bytes")
            #expect(whole.headers[.contentDisposition]?.hasPrefix(#"inline; filename="picture.png""#) == true)
            #expect(whole.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            let etag = try #require(whole.headers[.eTag])

            let middle = try await session.download(download, headers: [.range: "bytes=65530-65545"])
            #expect(middle.status == .partialContent)
            #expect(middle.headers[.contentRange] == "bytes 65530-65545/200000")
            #expect(Array(middle.body.readableBytesView) == Array(bytes[65530...65545]))
            let tail = try await session.download(download, headers: [.range: "bytes=-10"])
            #expect(Array(tail.body.readableBytesView) == Array(bytes.suffix(10)))
            let open = try await session.download(download, headers: [.range: "bytes=131072-"])
            #expect(Array(open.body.readableBytesView) == Array(bytes[131072...]))
            let past = try await session.download(download, headers: [.range: "bytes=200000-"])
            #expect(past.status == .rangeNotSatisfiable)
            #expect(past.headers[.contentRange] == "bytes */200000")
            let cached = try await session.download(download, headers: [.ifNoneMatch: etag])
            #expect(cached.status == .notModified)
            #expect(cached.body.readableBytes == 0)

            // At rest the bytes are encrypted: no stretch of them is in the stored blob.
            let ids = try await f.database.inspect("SELECT asset_id FROM assets").split(separator: "\n")
            #expect(ids.count == 1)
            let stored = try await f.instance.assets.blobs.read(String(try #require(ids.first)), offset: 0, length: 1 << 20)
            #expect(stored.count > bytes.count)
            #expect(!Data(stored).contains(Data(bytes[1000..<1064])))
            #expect(session.storedBlobs().count == (kind == .dataDirectory ? 1 : 0))
        }
    }

    @Test("a multipart upload (CloudyKit's style) into an asset list; saving a record read back keeps its assets")
    func multipartAndList() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            let first = AssetSession.bytes(70_000, seed: 1)
            let second = AssetSession.bytes(10, seed: 2)
            var singles: [String] = []
            for bytes in [first, second] {
                let path = try await session.uploadPath(record: "album", field: "pages", as: f.alice)
                singles.append(try AssetSession.singleFile(try await session.uploadMultipart(bytes, to: path)).json)
            }
            let saved = try await session.postOK(
                "records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordName":"album","recordType":"Photo","fields":{"pages":{"value":[\#(singles.joined(separator: ","))],"type":"ASSETID_LIST"}}}}]}"#,
                as: f.alice
            )
            let record = try #require((saved["records"] as? [[String: Any]])?.first)
            let pages = try #require(((record["fields"] as? [String: Any])?["pages"] as? [String: Any])?["value"] as? [[String: Any]])
            #expect(pages.count == 2)
            for (page, bytes) in zip(pages, [first, second]) {
                let response = try await session.download(try AssetSession.downloadPath(page))
                #expect(Array(response.body.readableBytesView) == bytes)
                #expect(response.headers[.contentType] == "text/plain")
                #expect(response.headers[.contentDisposition]?.contains(#"filename="notes.txt""#) == true)
            }

            // A client saves back what it read (downloadURL and checksum, no receipt): the assets stay.
            let tag = try #require(record["recordChangeTag"] as? String)
            let readBack = try JSONSerialization.data(withJSONObject: pages)
            let resaved = try await session.postOK(
                "records/modify",
                #"{"operations":[{"operationType":"update","record":{"recordName":"album","recordType":"Photo","recordChangeTag":"\#(tag)","fields":{"pages":{"value":\#(String(decoding: readBack, as: UTF8.self))}}}}]}"#,
                as: f.alice
            )
            let again = try #require((resaved["records"] as? [[String: Any]])?.first)
            #expect(again["serverErrorCode"] == nil, "\(again)")
            let pagesAgain = try #require(((again["fields"] as? [String: Any])?["pages"] as? [String: Any])?["value"] as? [[String: Any]])
            let response = try await session.download(try AssetSession.downloadPath(pagesAgain.first))
            #expect(Array(response.body.readableBytesView) == first)
        }
    }
}

@Suite("assets: the checksum")
struct AssetChecksumTests {
    @Test("the same bytes uploaded twice get two checksums, neither of them the SHA-256 of the clear bytes")
    func checksumIsNoFingerprint() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            let bytes = AssetSession.bytes(150_000)
            let first = try #require(AssetSession.asset(try await session.saveRecord("c1", bytes: bytes, as: f.alice))?["fileChecksum"] as? String)
            let second = try #require(AssetSession.asset(try await session.saveRecord("c2", bytes: bytes, as: f.alice))?["fileChecksum"] as? String)
            #expect(AssetSession.isChecksum(first) && AssetSession.isChecksum(second))
            #expect(first != second)
            #expect(first != AssetSession.clearSHA256(bytes) && second != AssetSession.clearSHA256(bytes))
        }
    }
}

@Suite("assets: in the console")
struct ConsoleAssetTests {
    @Test("a public record's picture shows on its console page as a preview, with a download link that works")
    func preview() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            let bytes = AssetSession.bytes(5_000)
            let path = try await session.uploadPath(record: "sunset", field: "image", as: f.alice, scope: "public")
            let single = try AssetSession.singleFile(try await session.uploadRaw(bytes, to: path))
            _ = try await session.postOK(
                "records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordName":"sunset","recordType":"Photo","fields":{"image":{"value":\#(single.json)}}}}]}"#,
                as: f.alice,
                scope: "public"
            )
            let admin = try await ConsoleTests.session(f, email: "admin@example.com", role: .admin)
            let page = String(
                buffer: try await client.browse(.get, "/console/containers/\(HTTPFixture.container)/development/data/records/sunset", cookie: admin)
                    .body
            )
            let source = try #require(page.firstMatch(of: /<img class="preview" src="([^"]+)"/)).1
            #expect(page.contains(#"<a href="\#(source)">download</a>"#))
            let download = try await session.download(String(source))
            #expect(download.status == .ok && Array(download.body.readableBytesView) == bytes)
        }
    }
}

@Suite("assets: an empty file")
struct EmptyAssetTests {
    @Test("an empty file uploads, saves and downloads as empty, with its checksum")
    func emptyFile() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            let saved = try await session.saveRecord("empty", bytes: [], as: f.alice)
            let asset = AssetSession.asset(saved)
            #expect(asset?["size"] as? Int == 0 && AssetSession.isChecksum(asset?["fileChecksum"]))
            let path = try AssetSession.downloadPath(asset)
            let response = try await session.download(path)
            #expect(response.status == .ok && response.body.readableBytes == 0 && response.headers[.contentLength] == "0")
            // The engine's own reader gives an empty asset no bytes (and does not trap on it).
            let token = path.split(separator: "/")[3]
            var pieces = 0
            for try await _ in try await f.instance.assets.openDownload(token: String(token)).bytes() { pieces += 1 }
            #expect(pieces == 0)
        }
    }
}

@Suite("assets: assets/rereference")
struct AssetRereferenceTests {
    @Test("another record of the zone takes a record's asset without an upload; other zones and other users cannot")
    func rereference() async throws {
        try await HTTPFixture.with { f, client in
            let session = AssetSession(f: f, client: client)
            let bytes = AssetSession.bytes(90_000)
            let saved = try await session.saveRecord("p1", bytes: bytes, as: f.alice)
            let checksum = try #require(AssetSession.asset(saved)?["fileChecksum"] as? String)
            let answer = try await session.postOK(
                "assets/rereference",
                #"{"assets":[{"recordName":"p1","fieldName":"image"},{"recordName":"p1","fieldName":"nothing"},{"recordName":"gone","fieldName":"image"}]}"#,
                as: f.alice
            )
            let items = try #require(answer["assets"] as? [[String: Any]])
            #expect(items.count == 3)
            #expect(items[0]["fileChecksum"] as? String == checksum && items[0]["receipt"] is String)
            #expect(items[1]["serverErrorCode"] as? String == "NOT_FOUND" && items[2]["serverErrorCode"] as? String == "NOT_FOUND")
            var single = items[0]
            single.removeValue(forKey: "recordName")
            single.removeValue(forKey: "fieldName")
            let json = String(decoding: try JSONSerialization.data(withJSONObject: single), as: UTF8.self)

            // Any record and field of the zone may take it.
            let copy = try await session.saveRecordWith(json, record: "p2", field: "cover", as: f.alice)
            let downloaded = try await session.download(try AssetSession.downloadPath(AssetSession.asset(copy, field: "cover")))
            #expect(Array(downloaded.body.readableBytesView) == bytes)
            // Deleting the first record leaves the asset to the second.
            _ = try await session.postOK("records/modify", #"{"operations":[{"operationType":"delete","record":{"recordName":"p1"}}]}"#, as: f.alice)
            f.clock.advance(by: .seconds(24 * 60 * 60 + 1))
            await f.waitForIdleLoops()
            _ = try await f.instance.assets.collect()
            #expect(session.storedBlobs().count == 1)

            // Not in another zone of hers, and not Bob's to take.
            _ = try await session.postOK(
                "zones/modify",
                #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Other"}}}]}"#,
                as: f.alice
            )
            let elsewhere = try await session.post(
                "records/modify",
                #"{"zoneID":{"zoneName":"Other"},"operations":[{"operationType":"create","record":{"recordName":"p3","recordType":"Photo","fields":{"image":{"value":\#(json)}}}}]}"#,
                as: f.alice
            )
            #expect((try elsewhere.json["records"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "BAD_REQUEST")
            let bobs = try await session.postOK("assets/rereference", #"{"assets":[{"recordName":"p2","fieldName":"cover"}]}"#, as: f.bob)
            #expect((bobs["assets"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "NOT_FOUND")
        }
    }
}

extension AssetSession {
    /// Saves a new `Photo` with the `singleFile` dictionary in `image`; returns the saved record.
    func saveRecordWith(_ singleFile: String, record: String, field: String = "image", as user: User) async throws -> [String: Any] {
        let saved = try await postOK(
            "records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordName":"\#(record)","recordType":"Photo","fields":{"\#(field)":{"value":\#(singleFile)}}}}]}"#,
            as: user
        )
        let first = try #require((saved["records"] as? [[String: Any]])?.first)
        #expect(first["serverErrorCode"] == nil, "\(first)")
        return first
    }
}
