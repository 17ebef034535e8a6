//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import Synchronization
import Testing

@Suite("NimbusClient: assets uploaded and downloaded against a live server", .timeLimit(.minutes(2)))
struct AssetClientTests {
    let zone = ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")

    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) } }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-asset-\(UUID().uuidString)-\(name)").path
    }

    @Test("a file uploads with progress, saves as the field's asset, and downloads to a file with progress")
    func fileRoundTrip() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            let bytes = Self.bytes(300_000)
            let source = Self.temporaryPath("photo.jpg")
            let target = Self.temporaryPath("copy.jpg")
            defer { for path in [source, target] { try? FileManager.default.removeItem(atPath: path) } }
            try Data(bytes).write(to: URL(fileURLWithPath: source))

            let sent = Mutex<[Int64]>([])
            let asset = try await database.uploadAsset(fileAt: source, contentType: "image/jpeg", forRecord: "p1", field: "photo") {
                progress in sent.withLock { $0.append(progress.completed) }
            }
            #expect(asset.size == Int64(bytes.count) && asset.receipt != nil)
            #expect(sent.withLock { $0.last } == Int64(bytes.count))
            var record = Record(recordType: "Photo", recordID: RecordID(recordName: "p1", zoneID: zone))
            record.fields["photo"] = .asset(asset)
            _ = try await database.save(record)

            let fetched = try #require(try await database.records(named: ["p1"], in: zone)[NameKey("p1")]?.get())
            guard case .asset(let stored)? = fetched.fields["photo"] else {
                Issue.record("no asset in \(fetched.fields)")
                return
            }
            #expect(stored.downloadURL?.contains("${f}") == true && stored.receipt == nil)
            let received = Mutex<Int64>(0)
            try await database.downloadAsset(stored, to: target) { progress in received.withLock { $0 = progress.completed } }
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: target))) == bytes)
            #expect(received.withLock { $0 } == Int64(bytes.count))
        }
    }

    @Test("a download cut short finishes from where it stopped; bytes upload as well as files")
    func resumedDownload() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            let bytes = Self.bytes(200_000)
            let asset = try await database.uploadAsset(bytes, contentType: "application/pdf", fileName: "report.pdf", forRecord: "d1", field: "file")
            var record = Record(recordType: "Document", recordID: RecordID(recordName: "d1", zoneID: zone))
            record.fields["file"] = .asset(asset)
            let saved = try await database.save(record)
            guard case .asset(let stored)? = saved.fields["file"] else {
                Issue.record("no asset in the saved record")
                return
            }
            let target = Self.temporaryPath("report.pdf")
            defer { try? FileManager.default.removeItem(atPath: target) }
            // An earlier download stopped after 70,000 bytes.
            try Data(bytes.prefix(70_000)).write(to: URL(fileURLWithPath: target))
            let first = Mutex<Int64?>(nil)
            try await database.downloadAsset(stored, to: target) { progress in
                first.withLock { if $0 == nil { $0 = progress.completed } }
            }
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: target))) == bytes)
            #expect((first.withLock { $0 } ?? 0) > 70_000, "the download started over instead of resuming")
        }
    }

    @Test("an asset saved without its upload's receipt is refused, and nothing is saved")
    func withoutReceipt() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            var record = Record(recordType: "Photo", recordID: RecordID(recordName: "x", zoneID: zone))
            record.fields["photo"] = .asset(Asset(fileChecksum: "AAAA", size: 4))
            await #expect(throws: NimbusError.self) { _ = try await database.save(record) }
            let looked = try await database.records(named: ["x"], in: zone)[NameKey("x")]
            #expect((try? looked?.get()) == nil)
        }
    }
}
