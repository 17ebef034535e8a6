//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@Suite("nimbus record save --asset and record get --download", .timeLimit(.minutes(2)))
struct AssetCommandTests {
    @Test("a file saved as a record's asset comes back byte for byte; a bad --asset is refused before anything is sent")
    func saveAndDownload() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess(DataLocation(directory: directory))
        let client = try server.clientOptions()
        let photo = directory.appendingPathComponent("holiday.png")
        let bytes = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        try Data(bytes).write(to: photo)

        let saved = try await NimbusBinary.run(
            ["record", "save", "--asset", "photo=\(photo.path)", "--json", #"{"recordName":"p1","recordType":"Photo"}"#] + client
        )
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("downloadURL"), "\(saved.stdout)")

        let downloads = directory.appendingPathComponent("downloads")
        let fetched = try await NimbusBinary.run(["record", "get", "p1", "--download", downloads.path] + client)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Array(Data(contentsOf: downloads.appendingPathComponent("p1.photo"))) == bytes)

        let refused = try await NimbusBinary.run(["record", "save", "--asset", "photo", #"{"recordName":"p2","recordType":"Photo"}"#] + client)
        #expect(refused.status != 0 && refused.stderr.contains("FIELD=PATH"), "\(refused.stderr)")
        #expect(try await server.stop() == 0)
    }
}
