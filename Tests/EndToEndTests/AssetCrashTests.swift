//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusTestSupport
import Testing

@Suite("assets: a server killed during an upload", .timeLimit(.minutes(2)))
struct AssetCrashTests {
    @Test("SIGKILL in the middle of an upload leaves no asset, visible or counted; after a restart the upload can be sent again")
    func killedDuringUpload() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        let server = try await ServerProcess(data)
        let options = try server.clientOptions()
        let container = options[3]
        let query = "ckAPIToken=\(options[5])&ckWebAuthToken=\(options[7].addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        let asked = try await runProcess(
            "/usr/bin/env",
            [
                "curl", "-sS", "-X", "POST", "-H", "Content-Type: application/json", "--data",
                #"{"tokens":[{"recordName":"p1","recordType":"Photo","fieldName":"image"}]}"#,
                "\(server.url)/database/1/\(container)/development/private/assets/upload?\(query)",
            ]
        )
        let tokens = try #require((try JSONSerialization.jsonObject(with: Data(asked.stdout.utf8)) as? [String: Any])?["tokens"] as? [[String: Any]])
        let uploadPath = try #require((tokens.first?["url"] as? String).flatMap { URL(string: $0)?.path })
        let file = directory.appendingPathComponent("big.bin")
        try Data((0..<20_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }).write(to: file)
        func upload(to url: String, rate: String?) throws -> ProcessLaunch {
            try ProcessLaunch.start(
                "/usr/bin/env",
                ["curl", "-sS", "-X", "POST", "-H", "Content-Type: application/octet-stream", "--data-binary", "@\(file.path)"]
                    + (rate.map { ["--limit-rate", $0] } ?? []) + [url]
            )
        }

        // A slow upload: the server is killed once a part of it is on disk.
        let slow = try upload(to: server.url + uploadPath, rate: "2M")
        let incoming = directory.appendingPathComponent("assets/incoming")
        var started = false
        for _ in 0..<200 where !started {
            let parts = (try? FileManager.default.contentsOfDirectory(at: incoming, includingPropertiesForKeys: [.fileSizeKey])) ?? []
            started = parts.contains { ((try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) > 1_000_000 }
            if !started { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(started, "the upload never reached the server's disk")
        await server.kill()
        _ = await slow.waitForExit(timeout: .seconds(30))

        let again = try await ServerProcess(data)
        let blobs = directory.appendingPathComponent("assets/blobs")
        let kept =
            FileManager.default.enumerator(at: blobs, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
            .filter { !$0.hasDirectoryPath } ?? []
        #expect(kept.isEmpty, "a killed upload left a blob: \(kept)")
        #expect(try await data.database.inspect("SELECT COUNT(*) FROM assets") == "0")

        // The same upload URL (still within its 15 minutes) takes the bytes now.
        let retried = try upload(to: again.url + uploadPath, rate: nil)
        #expect(await retried.waitForExit(timeout: .seconds(60)) == 0)
        #expect(retried.stdout.contains(#""singleFile""#), "\(retried.stdout) \(retried.stderr)")
        #expect(try await data.database.inspect("SELECT COUNT(*) FROM assets") == "1")
        #expect(try await again.stop() == 0)
    }
}
