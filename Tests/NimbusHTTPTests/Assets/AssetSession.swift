//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NimbusEngine
import Testing

/// What the asset tests do over HTTP: ask for upload URLs, upload, save, read back, download.
struct AssetSession {
    typealias User = NimbusEngine.AccountService.NewUser

    let f: HTTPFixture
    let client: any TestClientProtocol

    /// Bytes that are not all alike, so a range or a chunk out of place shows.
    static func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        var state = UInt32(seed) &* 2_654_435_761
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// Whether `value` is an asset checksum as the server makes them: 32 bytes, base64.
    static func isChecksum(_ value: Any?) -> Bool {
        (value as? String).flatMap { Data(base64Encoded: $0) }?.count == 32
    }

    /// The SHA-256 of clear bytes, base64: what an asset's checksum must never be.
    static func clearSHA256(_ bytes: [UInt8]) -> String { Data(SHA256.hash(data: bytes)).base64EncodedString() }

    func post(_ operation: String, _ json: String, as user: User, scope: String = "private") async throws -> TestResponse {
        try await client.send(.post, f.path(operation, scope: scope, user: user.webAuthToken), json: json)
    }

    func postOK(_ operation: String, _ json: String, as user: User, scope: String = "private") async throws -> [String: Any] {
        let response = try await post(operation, json, as: user, scope: scope)
        #expect(response.status == .ok, "\(operation): \(String(buffer: response.body))")
        return try response.json
    }

    /// The path of an upload URL for `field` of `record`.
    func uploadPath(record: String, field: String, zone: String? = nil, owner: String? = nil, as user: User, scope: String = "private")
        async throws -> String
    {
        let zoneID = zone.map { #","zoneID":{"zoneName":"\#($0)""# + (owner.map { #","ownerRecordName":"\#($0)""# } ?? "") + "}" } ?? ""
        let body = try await postOK(
            "assets/upload",
            #"{"tokens":[{"recordName":"\#(record)","recordType":"Photo","fieldName":"\#(field)"}]\#(zoneID)}"#,
            as: user,
            scope: scope
        )
        let token = try #require((body["tokens"] as? [[String: Any]])?.first)
        #expect(token["recordName"] as? String == record && token["fieldName"] as? String == field)
        let url = try #require(token["url"] as? String)
        #expect(url.hasPrefix("http://nimbus.test/assets/1/upload/"))
        return String(url.dropFirst("http://nimbus.test".count))
    }

    /// Uploads raw bytes to an upload path; returns the response.
    func uploadRaw(_ bytes: [UInt8], to path: String, contentType: String = "image/png", fileName: String? = "picture.png") async throws
        -> TestResponse
    {
        var headers: HTTPFields = [.contentType: contentType]
        if let fileName { headers[.contentDisposition] = #"attachment; filename="\#(fileName)""# }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(bytes: bytes)) { $0 }
    }

    /// Uploads bytes as CloudyKit does: `multipart/form-data`, one part named `files`.
    func uploadMultipart(_ bytes: [UInt8], to path: String, fileName: String = "notes.txt", contentType: String = "text/plain") async throws
        -> TestResponse
    {
        let boundary = "----\(UUID().uuidString)"
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\(fileName)\"\r\n".utf8)
        body += Array("Content-Type: \(contentType)\r\n\r\n".utf8) + bytes + Array("\r\n--\(boundary)--\r\n".utf8)
        return try await client.execute(
            uri: path,
            method: .post,
            headers: [.contentType: "multipart/form-data; boundary=\(boundary)"],
            body: ByteBuffer(bytes: body)
        ) { $0 }
    }

    /// The `singleFile` dictionary of a successful upload, as JSON text.
    static func singleFile(_ response: TestResponse) throws -> (json: String, fields: [String: Any]) {
        #expect(response.status == .ok, "upload: \(String(buffer: response.body))")
        let single = try #require(try response.json["singleFile"] as? [String: Any])
        let data = try JSONSerialization.data(withJSONObject: single)
        return (String(decoding: data, as: UTF8.self), single)
    }

    /// Uploads `bytes` for `field` of `record` and saves the record with it; returns the saved record.
    @discardableResult
    func saveRecord(_ record: String, field: String = "image", bytes: [UInt8], as user: User) async throws -> [String: Any] {
        let path = try await uploadPath(record: record, field: field, as: user)
        let single = try Self.singleFile(try await uploadRaw(bytes, to: path))
        let saved = try await postOK(
            "records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordName":"\#(record)","recordType":"Photo","fields":{"\#(field)":{"value":\#(single.json)}}}}]}"#,
            as: user
        )
        return try #require((saved["records"] as? [[String: Any]])?.first)
    }

    /// The asset dictionary of `field` of a record dictionary.
    static func asset(_ record: [String: Any], field: String = "image") -> [String: Any]? {
        ((record["fields"] as? [String: Any])?[field] as? [String: Any])?["value"] as? [String: Any]
    }

    /// The path of a download URL, with its `${f}` replaced by `name`.
    static func downloadPath(_ asset: [String: Any]?, name: String = "file.bin") throws -> String {
        let url = try #require(asset?["downloadURL"] as? String)
        #expect(url.hasPrefix("http://nimbus.test/assets/1/download/") && url.hasSuffix("/${f}"), "\(url)")
        return String(url.dropFirst("http://nimbus.test".count).dropLast("${f}".count)) + name
    }

    func download(_ path: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: headers) { $0 }
    }

    /// Runs `body` against a server whose blob store is of `kind`.
    static func withFixture(
        _ kind: AssetBlobStoreTests.Kind,
        _ body: @escaping @Sendable (HTTPFixture, any TestClientProtocol) async throws -> Void
    ) async throws {
        switch kind {
        case .dataDirectory:
            try await HTTPFixture.with(body)
        case .s3:
            try await TestS3Server.with { server in
                try await HTTPFixture.with(configure: { $0.assetStore = server.configuration }, body)
            }
        }
    }

    /// The files the data directory's blob store holds.
    func storedBlobs() -> [URL] {
        let root = f.directory.appendingPathComponent("assets/blobs")
        let found = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return found.filter { !$0.hasDirectoryPath && $0.lastPathComponent.count == 32 }
    }
}
