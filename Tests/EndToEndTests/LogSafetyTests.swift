//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// What the server's log holds: never a secret (the keys, the database password, API tokens,
/// web auth tokens, signing keys), and never a line a client wrote.
@Suite("the server's log", .timeLimit(.minutes(2)))
struct LogSafetyTests {
    @Test("at trace level, requests of every kind leave no key, token or password in the server's output")
    func nothingSecretAtTrace() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        let fieldKey = Data((0..<32).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }).base64EncodedString()
        let tokenKey = Data((0..<32).map { UInt8(truncatingIfNeeded: $0 * 13 + 5) }).base64EncodedString()
        // The throwaway cluster trusts loopback, so a password in the URL is accepted and unused.
        let password = "pw-\(UUID().uuidString)"
        var arguments = ["serve", "--port", "0", "--data", data.directory]
        if let url = data.database.postgresURL {
            arguments += ["--database", url.replacingOccurrences(of: "postgres://nimbus@", with: "postgres://nimbus:\(password)@")]
        }
        let server = try await ServerProcess(
            data,
            environment: [
                "NIMBUS_LOG_LEVEL": "trace", "NIMBUS_ENCRYPTION_KEY": fieldKey, "NIMBUS_TOKEN_KEY": tokenKey,
                // Read and configured at start, though nothing here sends mail through it.
                "NIMBUS_SMTP_URL": "smtp://nimbus:\(password)@127.0.0.1:1?from=nimbus@example.com",
            ],
            arguments: arguments
        )
        let container = try #require(server.exported("NIMBUS_CONTAINER"))
        let apiToken = try #require(server.exported("NIMBUS_API_TOKEN"))
        let webAuthToken = try #require(server.exported("NIMBUS_WEB_AUTH_TOKEN"))
        let user = ["--url", server.url, "--container", container, "--api-token", apiToken, "--web-auth-token", webAuthToken]
        func nimbus(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await NimbusBinary.run(arguments)
        }

        // Records, zones, queries, changes, encrypted fields, shares, subscriptions, the inbox.
        #expect(try await nimbus(["zone", "create", "Notes"] + user).status == 0)
        let encrypted = #"{"recordName":"n1","recordType":"Note","fields":{"secret":{"value":"x","isEncrypted":true}}}"#
        #expect(try await nimbus(["record", "save", "--zone", "Notes", encrypted] + user).status == 0)
        _ = try await nimbus(["record", "query", "--zone", "Notes", "--type", "Note"] + user)
        _ = try await nimbus(["changes", "fetch", "--zone", "Notes"] + user)
        _ = try await nimbus(["share", "create", "--zone", "Notes", "--invite", "ann@example.com:read-write"] + user)
        _ = try await nimbus(["subscription", "create", "zone", "--zone", "Notes", "--id", "notes"] + user)
        _ = try await nimbus(["notifications", "inbox"] + user)
        // A second user, a bad token, and a server-to-server key that signs.
        let added = try await nimbus(["user", "add", "Bob", "--container", container, "--json"] + data.options)
        let bobToken = try #require((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: String])?["webAuthToken"])
        _ = try await nimbus(["zone", "list", "--url", server.url, "--container", container, "--api-token", apiToken, "--web-auth-token", bobToken])
        _ = try await nimbus(["zone", "list", "--url", server.url, "--container", container, "--api-token", apiToken, "--web-auth-token", "forged"])
        let privateKey = directory.appendingPathComponent("k.pem").path
        let publicKey = directory.appendingPathComponent("k.pub.pem").path
        _ = try await runProcess("/usr/bin/env", ["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", privateKey])
        _ = try await runProcess("/usr/bin/env", ["openssl", "ec", "-in", privateKey, "-pubout", "-out", publicKey])
        let key = try await nimbus(["key", "add", "--container", container, "--public-key", publicKey, "--json"] + data.options)
        let keyID = try #require((try JSONSerialization.jsonObject(with: Data(key.stdout.utf8)) as? [String: String])?["keyID"], "\(key)")
        let signed = try await nimbus(
            [
                "record", "save", #"{"recordName":"s1","recordType":"Note"}"#, "--url", server.url, "--container", container, "--key-id", keyID,
                "--key-file", privateKey,
            ]
        )
        #expect(signed.status == 0, "\(signed.stderr)")
        // Raw requests with the tokens in the query, as CloudKit JS sends them.
        let query = "ckAPIToken=\(apiToken)&ckWebAuthToken=\(webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        _ = try await runProcess(
            "/usr/bin/env",
            ["curl", "-s", "\(server.url)/database/1/\(container)/development/private/users/current?\(query)"]
        )
        // Signing up and in: a password, an anonymous account's credential and its token.
        let auth = "\(server.url)/auth/1/\(container)/development"
        let userPassword = "pass-\(UUID().uuidString)"
        _ = try await runProcess(
            "/usr/bin/env",
            ["curl", "-s", "\(auth)/signup?ckAPIToken=\(apiToken)", "-d", #"{"email":"cy@example.com","password":"\#(userPassword)","name":"Cy"}"#]
        )
        _ = try await runProcess(
            "/usr/bin/env",
            ["curl", "-s", "\(auth)/signin?ckAPIToken=\(apiToken)", "-d", #"{"email":"cy@example.com","password":"\#(userPassword)"}"#]
        )
        let anonymous = try await runProcess("/usr/bin/env", ["curl", "-s", "\(auth)/signup?ckAPIToken=\(apiToken)", "-d", #"{"name":"Dee"}"#])
        let signedUp = try #require(try JSONSerialization.jsonObject(with: Data(anonymous.stdout.utf8)) as? [String: Any], "\(anonymous.stdout)")
        let credential = try #require(signedUp["anonymousCredential"] as? String)
        let anonymousToken = try #require(signedUp["ckWebAuthToken"] as? String)
        _ = try await runProcess(
            "/usr/bin/env",
            ["curl", "-s", "\(auth)/signin?ckAPIToken=\(apiToken)", "-d", #"{"anonymousCredential":"\#(credential)"}"#]
        )
        // A web courier's URL is its only credential: a poll with a token that is not one fails.
        let courierToken = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        _ = try await runProcess("/usr/bin/env", ["curl", "-s", "\(server.url)/webcourier/\(courierToken)"])
        // An operator: a set-up link, a password chosen on its page, a console session.
        let operatorAdded = try await nimbus(["operator", "add", "ops@example.com", "--url", server.url, "--json"] + data.options)
        let setupLink = try #require((try JSONSerialization.jsonObject(with: Data(operatorAdded.stdout.utf8)) as? [String: String])?["setupLink"])
        let jar = directory.appendingPathComponent("cookies").path
        let setupPage = try await runProcess("/usr/bin/env", ["curl", "-s", "-c", jar, "-b", jar, setupLink])
        let formCSRF = try #require(setupPage.stdout.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)).1
        let operatorPassword = "operator-\(UUID().uuidString)"
        _ = try await runProcess(
            "/usr/bin/env",
            ["curl", "-s", "-c", jar, "-b", jar, "-d", "csrf=\(formCSRF)&password=\(operatorPassword)", setupLink]
        )
        let consolePage = try await runProcess("/usr/bin/env", ["curl", "-s", "-b", jar, "\(server.url)/console"])
        #expect(consolePage.stdout.contains("ops@example.com"), "the console did not open: \(consolePage.stdout)")
        let session = try #require(try String(contentsOfFile: jar, encoding: .utf8).firstMatch(of: /nimbus_console\t([0-9a-f]{64})/)).1
        #expect(try await server.stop() == 0)

        let privateKeyText = try String(contentsOfFile: privateKey, encoding: .utf8)
        let keyBody = privateKeyText.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        // The first start prints the development tokens once, on standard output, as export lines.
        let printed = server.stdout.split(separator: "\n").filter { !$0.hasPrefix("export ") }.joined(separator: "\n")
        let output = server.stderr + "\n" + printed
        #expect(output.contains("trace") || output.contains("debug"), "the server logged at trace level")
        // The access log: a line per request, with its route pattern and request UUID.
        let accessLines = server.stderr.split(separator: "\n").filter { $0.hasSuffix("[NimbusHTTP] request") }
        #expect(accessLines.count >= 15, "\(accessLines.count) access log lines")
        #expect(accessLines.contains { $0.contains("nimbus.route=/console/setup/{link}") && $0.contains("nimbus.request=") })
        #expect(accessLines.contains { $0.contains("nimbus.operation=records/modify") && $0.contains("nimbus.status=200") })
        let secrets = [
            ("field encryption key", fieldKey), ("token key", tokenKey), ("database and SMTP password", password), ("API token", apiToken),
            ("web auth token", webAuthToken), ("second user's token", bobToken), ("signing key", String(keyBody.prefix(40))),
            ("user's password", userPassword), ("anonymous credential", credential), ("signed-up token", anonymousToken),
            ("operator's set-up link", String(setupLink.split(separator: "/").last ?? "")), ("operator's password", operatorPassword),
            ("console session", String(session)), ("web courier token", courierToken),
        ]
        for (name, secret) in secrets {
            #expect(!output.contains(secret), "the \(name) is in the server's output")
            let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret
            #expect(!output.contains(encoded), "the \(name) is in the server's output, URL-encoded")
        }
    }

    @Test("what a client sends cannot forge a log line: malformed addresses are refused, values are escaped")
    func noForgedLines() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        let server = try await ServerProcess(data, environment: ["NIMBUS_LOG_LEVEL": "trace"])
        let container = try #require(server.exported("NIMBUS_CONTAINER"))
        let apiToken = try #require(server.exported("NIMBUS_API_TOKEN"))
        let webAuthToken = try #require(server.exported("NIMBUS_WEB_AUTH_TOKEN"))
        let token = webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let base = "\(server.url)/database/1/\(container)/development/private"
        let forged = #"{"lookupInfo":{"emailAddress":"ann@example.com\n2026-01-01T00:00:00Z critical nimbus: FORGED\u001b[2J"}}"#
        let refused = try await runProcess(
            "/usr/bin/env",
            ["curl", "-s", "-w", "\n%{http_code}", "\(base)/users/contacts/verify?ckAPIToken=\(apiToken)&ckWebAuthToken=\(token)", "-d", forged]
        )
        #expect(refused.stdout.hasSuffix("\n400"), "\(refused.stdout)")
        #expect(refused.stdout.contains("BAD_REQUEST"))
        // A record name with a newline is refused too, and whatever of it is logged stays escaped.
        let record = #"{"operations":[{"operationType":"create","record":{"recordName":"x\nFORGED\u001b[2J","recordType":"Note"}}]}"#
        _ = try await runProcess(
            "/usr/bin/env",
            ["curl", "-s", "\(base)/records/modify?ckAPIToken=\(apiToken)&ckWebAuthToken=\(token)", "-d", record]
        )
        // The same request with a well-formed address is logged (the development mailer's line),
        // which shows the path the forged one would have taken.
        let valid = #"{"lookupInfo":{"emailAddress":"ann@example.com"}}"#
        _ = try await runProcess(
            "/usr/bin/env",
            ["curl", "-s", "\(base)/users/contacts/verify?ckAPIToken=\(apiToken)&ckWebAuthToken=\(token)", "-d", valid]
        )
        #expect(try await server.stop() == 0)
        #expect(server.stderr.contains("nimbus.address=ann@example.com"), "\(server.stderr)")
        let lines = server.stderr.split(separator: "\n")
        #expect(!lines.contains { $0.contains("FORGED") && !$0.hasPrefix("20") }, "a line begins with what a client sent")
        #expect(!server.stderr.contains("\u{1B}"), "a terminal escape reached the log")
        #expect(!lines.contains { $0.contains("critical nimbus: FORGED") })
    }
}
