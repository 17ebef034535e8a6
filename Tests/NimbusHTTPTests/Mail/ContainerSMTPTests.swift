//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HummingbirdTesting
import NimbusModel
import NimbusStore
import NimbusTesting
import Testing

@Suite("mail: a container's own SMTP server")
struct ContainerSMTPTests {
    @Test("a container environment with its own SMTP URL mails through it; without, through the server's")
    func ownServer() async throws {
        try await TestSMTPServer.with { smtp in
            try await HTTPFixture.with { f, client in
                try await f.configureSignIn { $0.smtpURL = "smtp+plain://127.0.0.1:\(smtp.port)?from=codes@tact.example.com" }
                // Kept encrypted: the stored settings never hold the URL in clear.
                #expect(try await !f.database.inspect("SELECT settings FROM sign_in_settings").contains("tact.example.com"))
                #expect(try await f.auth(client, "code", ["email": "own@example.com"]).status == .ok)
                let deadline = ContinuousClock.now + .seconds(20)
                while smtp.messages.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
                let message = try #require(smtp.messages.first, "no mail arrived: \(smtp.events)")
                #expect(message.mailFrom == "codes@tact.example.com")
                #expect(message.rcptTos == ["own@example.com"])
                #expect(f.mail.sent.isEmpty)

                try await f.configureSignIn { $0.smtpURL = nil }
                #expect(try await f.auth(client, "code", ["email": "server@example.com"]).status == .ok)
                #expect(TestMailbox.code(in: try await f.mail.next(to: "server@example.com")) != nil)
                #expect(smtp.messages.count == 1)
            }
        }
    }
}
