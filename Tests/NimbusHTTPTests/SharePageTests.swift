//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NimbusModel
import Testing

/// The page at a share's URL: what it shows to whom, its link preview, the app links and the
/// accept button.
@Suite("sharing: the invitation page at /share/{shortGUID}")
struct SharePageTests {
    /// Alice's chat `chat1`, shared with Bob by record name under a title with markup in it.
    private func seed(_ f: HTTPFixture, _ client: any TestClientProtocol, publicPermission: String = "NONE") async throws -> String {
        try await client.modifyZones("create", ["Chats"], path: f.path("zones/modify", user: f.alice.webAuthToken))
        let body = #"""
            {"zoneID":{"zoneName":"Chats"},"operations":[
              {"operationType":"create","record":{"recordName":"chat1","recordType":"Chat"}},
              {"operationType":"create","record":{"recordName":"share1","recordType":"cloudkit.share",
                "fields":{"cloudkit.title":{"value":"Tea <b>time</b>","type":"STRING"}},
                "forRecord":{"recordName":"chat1"},"publicPermission":"\#(publicPermission)",
                "participants":\#(publicPermission == "NONE" ? #"[{"type":"USER","permission":"READ_WRITE","userIdentity":{"lookupInfo":{"userRecordName":"\#(f.bob.user.userRecordName)"}}}]"# : "[]")}}]}
            """#
        let response = try await client.send(.post, f.path("records/modify", user: f.alice.webAuthToken), json: body)
        let records = try #require(try response.json["records"] as? [[String: Any]])
        #expect(records.allSatisfy { $0["serverErrorCode"] == nil }, "\(records)")
        return try #require(records.last?["shortGUID"] as? String)
    }

    private func page(_ client: any TestClientProtocol, _ guid: String, token: String? = nil) async throws -> (HTTPResponse.Status, String) {
        let query = token.map { "?ckWebAuthToken=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! } ?? ""
        let response = try await client.send(.get, "/share/\(guid)\(query)")
        return (response.status, String(buffer: response.body))
    }

    @Test("a private share shows its title and owner to its participants only; the preview says nothing of it")
    func privateShare() async throws {
        try await HTTPFixture.with { f, client in
            let guid = try await seed(f, client)
            let carol = try await f.instance.accounts.addUser(name: "Carol", email: nil, phone: nil, container: HTTPFixture.container)
            for token in [nil, carol.webAuthToken, "not-a-token"] {
                let (status, html) = try await page(client, guid, token: token)
                #expect(status == .ok)
                #expect(html.contains("You have been invited"))
                #expect(!html.contains("Tea") && !html.contains("Alice"), "the share leaked: \(html)")
                #expect(html.contains(#"<meta property="og:title" content="You have been invited">"#))
                #expect(!html.contains("<form"))
            }
            let (status, html) = try await page(client, guid, token: f.bob.webAuthToken)
            #expect(status == .ok)
            #expect(html.contains("<h1>Tea &lt;b&gt;time&lt;/b&gt;</h1>"), "title shown, escaped: \(html)")
            #expect(html.contains("Shared by Alice Liddell."))
            #expect(html.contains(#"<meta property="og:title" content="Tea &lt;b&gt;time&lt;/b&gt;">"#))
            #expect(html.contains(#"<form method="post" action="/share/\#(guid)">"#))
            // Links from a public URL written with a trailing slash reach the page too.
            for path in ["//share/\(guid)", "/share/\(guid)/"] {
                let response = try await client.send(.get, path)
                #expect(response.status == .ok, "\(path)")
                #expect(String(buffer: response.body).contains("You have been invited"), "\(path)")
            }
        }
    }

    @Test("a share path longer than any link is no page: a CloudKit-shaped 400, for every method")
    func overlongShortGUID() async throws {
        try await HTTPFixture.with { _, client in
            let guid = String(repeating: "0", count: 65)
            for method in [HTTPRequest.Method.get, .post] {
                let response = try await client.send(method, "/share/\(guid)")
                try response.expectError("BAD_REQUEST", status: .badRequest)
            }
            #expect(try await client.send(.get, "/share/\(String(repeating: "0", count: 64))").status == .notFound)
        }
    }

    @Test("the accept button joins the share; the page then says so")
    func acceptFromThePage() async throws {
        try await HTTPFixture.with { f, client in
            let guid = try await seed(f, client)
            let form = "ckWebAuthToken=" + f.bob.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response = try await client.execute(
                uri: "/share/\(guid)",
                method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: form)
            )
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).contains("You joined Tea &lt;b&gt;time&lt;/b&gt;"))
            let zones = try await client.send(.get, f.path("zones/list", scope: "shared", user: f.bob.webAuthToken))
            #expect((try zones.json["zones"] as? [Any])?.count == 1)
            #expect(try await page(client, guid, token: f.bob.webAuthToken).1.contains("You have joined."))
            // The owner opening their own link is told it is theirs, not that they joined.
            let own = try await page(client, guid, token: f.alice.webAuthToken).1
            #expect(own.contains("You own this") && !own.contains("joined"), "\(own)")
            // Without a valid token nothing is accepted.
            let refused = try await client.execute(
                uri: "/share/\(guid)",
                method: .post,
                headers: [:],
                body: ByteBuffer(string: "ckWebAuthToken=nope")
            )
            #expect(refused.status == .forbidden)
        }
    }

    @Test("a public share previews its title to anyone; app links follow the container's settings")
    func publicShareAndAppLinks() async throws {
        try await HTTPFixture.with { f, client in
            let guid = try await seed(f, client, publicPermission: "READ_WRITE")
            let (_, anonymous) = try await page(client, guid)
            #expect(anonymous.contains("Tea &lt;b&gt;time&lt;/b&gt;") && anonymous.contains("Sign in or create an account to join"))
            #expect(!anonymous.contains("tact://"))
            _ = try await f.instance.accounts.configureContainer(
                HTTPFixture.container,
                appURLScheme: "tact",
                fallbackURL: "https://example.com/join/"
            )
            let (_, configured) = try await page(client, guid)
            #expect(configured.contains(#"href="tact://share/\#(guid)""#))
            #expect(configured.contains(#"href="https://example.com/join/\#(guid)""#))
            await #expect(throws: NimbusError.self) {
                _ = try await f.instance.accounts.configureContainer(HTTPFixture.container, appURLScheme: "javascript:alert(1)", fallbackURL: nil)
            }
            await #expect(throws: NimbusError.self) {
                _ = try await f.instance.accounts.configureContainer(HTTPFixture.container, appURLScheme: nil, fallbackURL: "javascript:alert(1)")
            }
        }
    }

    @Test("an unknown short GUID is a plain not-found page")
    func unknownShare() async throws {
        try await HTTPFixture.with { f, client in
            let (status, html) = try await page(client, "0000000000000000000000000")
            #expect(status == .notFound)
            #expect(html.contains("not valid"))
        }
    }
}
