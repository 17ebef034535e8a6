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
import NimbusSQL
import NimbusStore
import NimbusTestSupport
import Testing

/// Replays the requests real CKWS clients sent (Fixtures/client-captures.md, copied from the
/// shared spec) byte for byte, signatures included, against a server that knows the captures'
/// key and tokens.
@Suite("requests captured from real CloudKit Web Services clients")
struct ClientCaptureTests {
    struct CapturedRequest {
        var client: String
        var method: HTTPRequest.Method
        var target: String
        var headers: [(String, String)]
        var body: String

        var operation: String { target.split(separator: "?")[0].split(separator: "/").suffix(2).joined(separator: "/") }
    }

    static let container = "iCloud.com.example.acceptance"
    static let apiToken = String(repeating: "ab", count: 32)
    static let webAuthToken = String(repeating: "Ab+/", count: 30) + "=="
    static let publicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEmqJK2nTtgYiMklB0N8Qu95NAmvLt
        j7u5nEbwDFGuQvBNbCesy/Vi4/DfK+H+3W8vZI7wQP9Gq2K1Rl8DhyKn8g==
        -----END PUBLIC KEY-----
        """

    /// Parses every request block that has headers (the request-line-only summaries are skipped).
    static func captures(in fixture: String = "client-captures.md") throws -> [CapturedRequest] {
        let lines = try fixtureText(fixture).components(separatedBy: "\n")
        var requests: [CapturedRequest] = []
        var client = ""
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("### "), !line.contains("HTTP/1.1") { client = String(line.dropFirst(4)) }
            guard line.hasPrefix("### "), line.hasSuffix(" HTTP/1.1"),
                index + 1 < lines.count, lines[index + 1].contains(": ")
            else {
                index += 1
                continue
            }
            let parts = line.split(separator: " ")
            var request = CapturedRequest(
                client: client,
                method: HTTPRequest.Method(String(parts[1]))!,
                target: String(parts[2]),
                headers: [],
                body: ""
            )
            index += 1
            while index < lines.count, !lines[index].isEmpty {
                let header = lines[index].split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                request.headers.append((header[0], header[1]))
                index += 1
            }
            index += 1
            var body: [String] = []
            while index < lines.count, !lines[index].hasPrefix("--- signature check"), !lines[index].hasPrefix("### ") {
                body.append(lines[index])
                index += 1
            }
            let length = request.headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
            request.body = String(decoding: Array(body.joined(separator: "\n").utf8).prefix(length), as: UTF8.self)
            requests.append(request)
        }
        return requests
    }

    /// The text of a file in Fixtures/.
    static func fixtureText(_ name: String) throws -> String {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// Sends a captured request as it was sent (less the headers of the connection itself).
    static func send(_ request: CapturedRequest, with client: any TestClientProtocol) async throws -> TestResponse {
        var headers = HTTPFields()
        for (name, value) in request.headers where !["host", "content-length", "connection", "accept-encoding"].contains(name.lowercased()) {
            headers.append(HTTPField(name: HTTPField.Name(name)!, value: value))
        }
        return try await client.send(request.method, request.target, json: request.body.isEmpty ? nil : request.body, headers: headers)
    }

    /// Registers the captures' credentials before the server opens the directory.
    static func seed(_ database: TestDatabase) async throws {
        let store = try await database.open(cipher: FieldCipher(keyBytes: Array(repeating: 1, count: 32))!)
        let developer = UserIdentity(userRecordName: Credentials.makeUserRecordName(), name: "Developer")
        try await store.createContainer(
            ContainerEnvironment(container: container, environment: .development),
            apiTokenHash: Credentials.hash(apiToken),
            developer: developer
        )
        let user = UserIdentity(userRecordName: Credentials.makeUserRecordName(), name: "Mist Kit")
        try await store.addUser(user, toContainer: container)
        try await store.addWebAuthToken(
            WebAuthTokenRecord(
                hash: Credentials.hash(webAuthToken),
                container: container,
                userRecordName: user.userRecordName,
                issuedAt: Int64(Date().timeIntervalSince1970 * 1000),
                expiresAt: Int64.max / 2,
                lifetime: 3_600_000
            )
        )
        await store.close()
    }

    @Test("the parser finds the captured requests of every client")
    func parsesCaptures() throws {
        let requests = try Self.captures()
        #expect(requests.count >= 25)
        #expect(Set(requests.map(\.client)).count >= 6)
        #expect(requests.allSatisfy { $0.headers.contains { $0.0.lowercased() == "host" } })
    }

    @Test("every captured request is accepted: signatures verify, bodies decode, responses have the documented shape")
    func replay() async throws {
        let requests = try Self.captures()
        // The captures were signed on 2026-11-21; widen the date window so they still verify.
        try await HTTPFixture.with(signatureWindowSeconds: 50 * 365 * 24 * 3600, seed: Self.seed) { f, client in
            let keyID = try await f.instance.accounts.addServerKey(publicKeyPEM: Self.publicKeyPEM, container: Self.container)
            #expect(keyID == "4ce75e89968ffec90c63e33309f0f511e61aacd347724fd7fb1ee3fdcc262f00")
            for request in requests {
                let response = try await Self.send(request, with: client)
                let label = "\(request.client): \(request.method) \(request.target.prefix(120))"
                let body = try response.json
                let signed = request.headers.contains { $0.0.lowercased() == "x-apple-cloudkit-request-keyid" }
                if signed && request.target.contains("/private/") {
                    // CloudKitPy's library bug: a server key cannot read a private database.
                    #expect(response.status == .forbidden, "\(label)")
                    #expect(body["serverErrorCode"] as? String == "ACCESS_DENIED", "\(label): \(body)")
                    continue
                }
                if request.operation == "records/changes" {
                    #expect(response.status == .ok, "\(label): \(body)")
                    #expect(body["records"] is [[String: Any]], "\(label): \(body)")
                    #expect(body["syncToken"] is String, "\(label): \(body)")
                    #expect(body["moreComing"] as? Bool == false, "\(label): \(body)")
                    continue
                }
                if request.target.contains("ckAPIToken") && !request.target.contains("ckWebAuthToken") {
                    // Anonymous callers cannot create zones: CloudKit asks them to sign in.
                    #expect(response.status == .misdirectedRequest, "\(label)")
                    continue
                }
                #expect(response.status == .ok, "\(label): \(body)")
                let key = request.operation.hasPrefix("zones") ? "zones" : "records"
                #expect(body[key] is [[String: Any]], "\(label): \(body)")
            }
            // MistKit and CloudyKit both queried for title == "hello" after saving such a note.
            let queried = try await f.instance.database.queryRecords(
                Query(recordType: "Note", filters: [Filter("title", .equals, .string("hello"))]),
                inZone: nil,
                resultsLimit: nil,
                continuationMarker: nil,
                access: DatabaseAccess(
                    caller: Caller(container: Self.container, environment: .development, kind: .anonymous, userRecordName: nil),
                    scope: .public
                )
            )
            #expect(queried.records.isEmpty, "every captured create was followed by a delete")
        }
    }
}
