//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusModel
import NimbusTesting
import Testing

@Suite("sign-in: signing up from an invitation")
struct InvitationSignUpTests {
    @Test("a person invited by email signs up from the invitation page, comes back signed in, and accepts")
    func signUpAndAccept() async throws {
        try await HTTPFixture.with { f, client in
            try await client.modifyZones("create", ["Chats"], path: f.path("zones/modify", user: f.alice.webAuthToken))
            let body = #"""
                {"zoneID":{"zoneName":"Chats"},"operations":[
                  {"operationType":"create","record":{"recordName":"chat1","recordType":"Chat"}},
                  {"operationType":"create","record":{"recordName":"share1","recordType":"cloudkit.share",
                    "fields":{"cloudkit.title":{"value":"Tea time","type":"STRING"}},
                    "forRecord":{"recordName":"chat1"},"publicPermission":"NONE",
                    "participants":[{"type":"USER","permission":"READ_WRITE","userIdentity":{"lookupInfo":{"emailAddress":"zoe@example.com"}}}]}}]}
                """#
            let created = try await client.send(.post, f.path("records/modify", user: f.alice.webAuthToken), json: body)
            let guid = try #require((try created.json["records"] as? [[String: Any]])?.last?["shortGUID"] as? String)

            // Not signed in: the invitation page links to the sign-in page, which comes back here.
            let invitation = String(buffer: try await client.send(.get, "/share/\(guid)").body)
            #expect(!invitation.contains("Tea time"))
            let link = try #require(
                invitation.range(of: #"class="signin" href=""#).map { String(invitation[$0.upperBound...].prefix { $0 != "\"" }) }
            )
            let signInPath = link.replacingOccurrences(of: "&amp;", with: "&")
            #expect(signInPath == "/signin/\(HTTPFixture.container)/development?return=%2Fshare%2F\(guid)")

            let response = try await client.send(.get, signInPath)
            let html = String(buffer: response.body)
            let opened = SignInPageTests.Opened(
                flow: try #require(SignInPageTests.hidden("flow", in: html)),
                csrf: try #require(SignInPageTests.hidden("csrf", in: html)),
                cookie: String(try #require(response.headers[.setCookie]).prefix { $0 != ";" })
            )
            let signedUp = try await SignInPageTests.post(
                client,
                opened,
                ["action": "signup", "name": "Zoe", "email": "zoe@example.com", "password": "zoe's long password"]
            )
            #expect(signedUp.status == .ok)
            let code = try #require(TestMailbox.code(in: try await f.mail.next(to: "zoe@example.com")))
            let verified = try await SignInPageTests.post(client, opened, ["action": "verify", "email": "zoe@example.com", "code": code])
            #expect(verified.status == .seeOther)
            let back = try #require(verified.headers[.location])
            #expect(back.hasPrefix("/share/\(guid)?ckWebAuthToken="))

            // Back on the invitation, signed in with the invited (now verified) address.
            let page = String(buffer: try await client.send(.get, back).body)
            #expect(page.contains("<h1>Tea time</h1>"), "\(page)")
            #expect(page.contains(#"<form method="post" action="/share/\#(guid)">"#))
            let token = try #require(SignInPageTests.hidden("ckWebAuthToken", in: page))
            let accepted = try await client.send(
                .post,
                "/share/\(guid)",
                json: "ckWebAuthToken=" + token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                headers: [.contentType: "application/x-www-form-urlencoded"]
            )
            #expect(String(buffer: accepted.body).contains("You joined Tea time"))
            let zones = try await client.send(.get, f.path("zones/list", scope: "shared", user: token))
            #expect((try zones.json["zones"] as? [Any])?.count == 1)
        }
    }

    @Test("the way back must be an invitation page of this server")
    func returnIsChecked() async throws {
        try await HTTPFixture.with { _, client in
            for target in [
                "https%3A%2F%2Fevil.example.com%2Fshare%2Fx", "%2F%2Fevil.example.com%2Fshare%2Fx", "%2Fshare%2F..%2Fadmin", "%2Fdatabase%2F1",
            ] {
                try await client.send(.get, "/signin/\(HTTPFixture.container)/development?return=\(target)").expectError(
                    "BAD_REQUEST",
                    status: .badRequest
                )
            }
        }
    }
}
