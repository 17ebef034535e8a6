//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusEngine
import Testing

@testable import NimbusServer

/// What every blob store does, run on the data directory's and on an S3-compatible one.
@Suite("assets: the blob stores")
struct AssetBlobStoreTests {
    enum Kind: String, CaseIterable, Sendable {
        case dataDirectory
        case s3
    }

    /// Runs `body` with a store of `kind` on a fresh directory (and a fresh S3 server).
    static func with(_ kind: Kind, _ body: @Sendable (any AssetBlobStore, URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-blobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        switch kind {
        case .dataDirectory:
            try await body(try FileAssetBlobStore(directory: directory.path), directory)
        case .s3:
            try await TestS3Server.with { server in
                try await body(try S3AssetBlobStore(configuration: server.configuration, incomingDirectory: directory.path + "/incoming"), directory)
            }
        }
    }

    static func incoming(_ store: any AssetBlobStore, _ bytes: [UInt8]) throws -> String {
        let path = store.incomingDirectory + "/\(UUID().uuidString).part"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a kept blob reads back whole and by ranges; the incoming file is consumed; deleted, it is missing", arguments: Kind.allCases)
    func keepReadDelete(_ kind: Kind) async throws {
        try await Self.with(kind) { store, _ in
            let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let path = try Self.incoming(store, bytes)
            let id = "0123456789abcdef0123456789abcdef"
            try await store.keep(path, as: id)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try await store.read(id, offset: 0, length: bytes.count) == bytes)
            #expect(try await store.read(id, offset: 70_000, length: 10) == Array(bytes[70_000..<70_010]))
            #expect(try await store.read(id, offset: 299_990, length: 100) == Array(bytes[299_990...]))
            #expect(try await store.read(id, offset: 300_000, length: 10).isEmpty)
            try await store.delete(id)
            await #expect(throws: AssetBlobMissing.self) { try await store.read(id, offset: 0, length: 10) }
            // Deleting what is not there is not an error: a collector may run twice.
            try await store.delete(id)
        }
    }

    @Test("a blob that never was is missing, not an error of the store", arguments: Kind.allCases)
    func missing(_ kind: Kind) async throws {
        try await Self.with(kind) { store, _ in
            await #expect(throws: AssetBlobMissing.self) { try await store.read("fedcba9876543210fedcba9876543210", offset: 0, length: 1) }
        }
    }

    @Test("requests are signed as AWS documents Signature V4 for S3 (its GET and PUT examples)")
    func signatureV4() {
        let signer = S3RequestSigner(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            region: "us-east-1"
        )
        let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
        let get = signer.sign(
            method: "GET",
            path: "/test.txt",
            headers: ["host": "examplebucket.s3.amazonaws.com", "range": "bytes=0-9"],
            payloadHash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            date: date
        )
        #expect(
            get["authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
        let put = signer.sign(
            method: "PUT",
            path: "/test$file.text",
            headers: [
                "host": "examplebucket.s3.amazonaws.com", "date": "Fri, 24 May 2013 00:00:00 GMT",
                "x-amz-storage-class": "REDUCED_REDUNDANCY",
            ],
            payloadHash: "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
            date: date
        )
        #expect(put["authorization"]?.hasSuffix("Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd") == true)
    }

    @Test("an S3 endpoint over plain HTTP is refused unless it is on loopback; the secret is never printed")
    func endpointAndSecret() throws {
        let configuration = S3Configuration(
            endpoint: "http://s3.example.com",
            bucket: "b",
            region: "us-east-1",
            accessKeyID: "AK",
            secretAccessKey: "the-secret"
        )
        #expect(throws: ServerError.self) { try S3AssetBlobStore(configuration: configuration, incomingDirectory: NSTemporaryDirectory()) }
        #expect(!"\(configuration)".contains("the-secret") && !String(reflecting: configuration).contains("the-secret"))
    }
}
