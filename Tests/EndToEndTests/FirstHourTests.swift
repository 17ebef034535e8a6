//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import Testing

/// A new user's first hour with the `nimbus` executable: values printed as people read them,
/// mistakes answered with what to do next, and destructive commands that ask first.
@Suite("the first hour with the nimbus command", .timeLimit(.minutes(2)))
struct FirstHourTests {
    private func withServer(_ body: (DataLocation, ServerProcess, [String]) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        let server = try await ServerProcess(data)
        try await body(data, server, try server.clientOptions())
        #expect(try await server.stop() == 0)
    }

    @Test("--version prints the release")
    func version() async throws {
        let printed = try await NimbusBinary.run(["--version"])
        #expect(printed.status == 0)
        #expect(printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == NimbusVersion.current)
    }

    @Test("records print their values as people read them, encrypted fields included and marked")
    func readableRecords() async throws {
        try await withServer { _, _, user in
            #expect(try await NimbusBinary.run(["zone", "create", "Notes"] + user).status == 0)
            let record = """
                {"recordName":"hello","recordType":"Note","fields":{
                "title":{"value":"Hello"},"when":{"value":1764211200123,"type":"TIMESTAMP"},
                "where":{"value":{"latitude":52.5,"longitude":13.4,"horizontalAccuracy":10}},
                "next":{"value":{"recordName":"other","action":"NONE"}},"tags":{"value":["a","b"]},
                "secret":{"value":"s","isEncrypted":true}}}
                """
            let saved = try await NimbusBinary.run(["record", "save", "--zone", "Notes", record] + user)
            #expect(saved.status == 0, "\(saved.stderr)")
            let lines = saved.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
            for expected in [
                #"title "Hello""#, "when 2025-11-27T02:40:00.123Z", "where 52.5, 13.4 ±10.0 m", "next ref → other", #"tags ["a", "b"]"#,
                #"secret (encrypted) "s""#,
            ] {
                #expect(lines.contains(expected), "no line \(expected) in:\n\(saved.stdout)")
            }
            #expect(!saved.stdout.contains("NimbusModel"), "Swift's debug text leaked: \(saved.stdout)")
        }
    }

    @Test("mistakes say what to do next: a URL without a scheme, no user token, a port in use, a container that does not exist")
    func mistakes() async throws {
        try await withServer { data, server, user in
            let port = try #require(server.url.split(separator: ":").last.map(String.init))
            var options = user
            let urlIndex = try #require(options.firstIndex(of: "--url"))
            options[urlIndex + 1] = "127.0.0.1:\(port)"
            let schemeless = try await NimbusBinary.run(["zone", "list"] + options)
            #expect(schemeless.status != 0)
            #expect(schemeless.stderr.contains("did you mean http://127.0.0.1:\(port)?"), "\(schemeless.stderr)")

            let tokenIndex = try #require(user.firstIndex(of: "--web-auth-token"))
            let anonymous = Array(user[..<tokenIndex]) + Array(user[(tokenIndex + 2)...])
            let noToken = try await NimbusBinary.run(["zone", "list"] + anonymous)
            #expect(noToken.status != 0)
            #expect(noToken.stderr.contains("NIMBUS_WEB_AUTH_TOKEN"), "\(noToken.stderr)")

            let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: fresh) }
            let taken = try await runProcess(
                "/usr/bin/env",
                ["timeout", "20", NimbusBinary.path, "serve", "--port", port] + DataLocation(directory: fresh).options
            )
            #expect(taken.status != 0)
            #expect(taken.stderr.contains("port \(port) on 127.0.0.1 is in use") && taken.stderr.contains("--port"), "\(taken.stderr)")

            for command in [["schema", "export"], ["schema", "deploy"]] {
                let missing = try await NimbusBinary.run(command + ["--container", "iCloud.nowhere"] + data.options)
                #expect(missing.status != 0, "\(command)")
                #expect(missing.stderr.contains("container iCloud.nowhere does not exist"), "\(missing.stderr)")
            }
        }
    }

    @Test("settings: an unknown log level is refused, and an empty value is an unset one")
    func settings() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        let typo = try await runProcess(
            "/usr/bin/env",
            ["NIMBUS_LOG_LEVEL=verbose", "timeout", "20", NimbusBinary.path, "serve", "--port", "0"] + data.options
        )
        #expect(typo.status != 0)
        #expect(typo.stderr.contains("NIMBUS_LOG_LEVEL must be one of trace, debug, info"), "\(typo.stderr)")
        let server = try await ServerProcess(
            data,
            environment: ["NIMBUS_TOMBSTONE_RETENTION_DAYS": "", "NIMBUS_INBOX_RETENTION_DAYS": " ", "NIMBUS_PUBLIC_URL": ""]
        )
        #expect(server.stdout.contains("export NIMBUS_URL=\(server.url)"), "an empty NIMBUS_PUBLIC_URL named the links: \(server.stdout)")
        #expect(try await server.stop() == 0)
    }

    @Test("a settings file (NIMBUS_CONFIG_FILE) is read; the environment wins over it; nimbus config redacts secrets; a missing file stops")
    func settingsFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("nimbus.env")
        let secret = Data((0..<32).map { UInt8($0 * 7) }).base64EncodedString()
        try "# Nimbus\nNIMBUS_HOSTNAME=0.0.0.0\nNIMBUS_TOKEN_KEY=\(secret)\nNIMBUS_APPS=\nNIMBUS_PUBLIC_URL=https://nimbus.example.test\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let shown = try await runProcess(
            "/usr/bin/env",
            ["NIMBUS_CONFIG_FILE=\(file.path)", "NIMBUS_HOSTNAME=127.0.0.1", NimbusBinary.path, "config"]
        )
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("NIMBUS_HOSTNAME=127.0.0.1") && shown.stdout.contains("NIMBUS_PUBLIC_URL=https://nimbus.example.test"))
        #expect(shown.stdout.contains("NIMBUS_TOKEN_KEY=<redacted>") && !shown.stdout.contains(secret), "\(shown.stdout)")
        #expect(!shown.stdout.contains("NIMBUS_APPS"), "an empty value counts as set: \(shown.stdout)")

        // A server reads it: its links name the public URL the file gives.
        let data = DataLocation(directory: directory.appendingPathComponent("data"))
        let server = try await ServerProcess(data, environment: ["NIMBUS_CONFIG_FILE": file.path, "NIMBUS_HOSTNAME": "127.0.0.1"])
        #expect(server.exported("NIMBUS_URL") == "https://nimbus.example.test", "\(server.stdout)")
        #expect(try await server.stop() == 0)

        let missing = try await runProcess("/usr/bin/env", ["NIMBUS_CONFIG_FILE=\(directory.path)/nowhere.env", NimbusBinary.path, "config"])
        #expect(missing.status != 0 && missing.stderr.contains("nowhere.env") && missing.stderr.contains("NIMBUS_CONFIG_FILE"), "\(missing.stderr)")
    }

    @Test("deleting asks first: without a terminal it takes --yes, and nothing is deleted until then")
    func destructiveCommands() async throws {
        try await withServer { _, _, user in
            #expect(try await NimbusBinary.run(["zone", "create", "Notes"] + user).status == 0)
            #expect(
                try await NimbusBinary.run(["record", "save", "--zone", "Notes", #"{"recordName":"n1","recordType":"Note"}"#] + user).status == 0
            )
            let refused = try await NimbusBinary.run(["record", "delete", "--zone", "Notes", "n1"] + user)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("pass --yes"), "\(refused.stderr)")
            #expect(try await NimbusBinary.run(["record", "get", "--zone", "Notes", "n1"] + user).status == 0, "deleted without --yes")
            let zone = try await NimbusBinary.run(["zone", "delete", "Notes"] + user)
            #expect(zone.status != 0 && zone.stderr.contains("every record in it"), "\(zone.stderr)")
            #expect(try await NimbusBinary.run(["record", "delete", "--zone", "Notes", "n1", "--yes"] + user).stdout.contains("deleted n1"))
        }
    }

    @Test("a lost web auth token is replaced with nimbus user token, which a later start names")
    func lostToken() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        let first = try await ServerProcess(data)
        var options = try first.clientOptions()
        let container = try #require(first.exported("NIMBUS_CONTAINER"))
        #expect(try await first.stop() == 0)

        let second = try await ServerProcess(data)
        #expect(second.stdout.contains("nimbus user token USER --container ID"), "\(second.stdout)")
        let users = try await NimbusBinary.run(["user", "list", "--container", container, "--json"] + data.options)
        let listed = try #require((try JSONSerialization.jsonObject(with: Data(users.stdout.utf8)) as? [String: Any])?["users"] as? [[String: Any]])
        let user = try #require(listed.first?["userRecordName"] as? String)
        let made = try await NimbusBinary.run(["user", "token", user, "--container", container, "--json"] + data.options)
        let token = try #require((try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: String])?["webAuthToken"], "\(made)")
        let urlIndex = try #require(options.firstIndex(of: "--url"))
        options[urlIndex + 1] = second.url
        let tokenIndex = try #require(options.firstIndex(of: "--web-auth-token"))
        options[tokenIndex + 1] = token
        let zones = try await NimbusBinary.run(["zone", "list"] + options)
        #expect(zones.status == 0, "the new token does not work: \(zones.stderr)")
        let nobody = try await NimbusBinary.run(["user", "token", "_nobody", "--container", container] + data.options)
        #expect(nobody.status != 0 && nobody.stderr.contains("no user _nobody"), "\(nobody.stderr)")
        #expect(try await second.stop() == 0)
    }

    @Test("a zone of the shared database named without its owner gets a hint naming the owner")
    func sharedZoneOwner() async throws {
        try await withServer { data, server, alice in
            let container = try #require(server.exported("NIMBUS_CONTAINER"))
            let added = try await NimbusBinary.run(
                ["user", "add", "Bob", "--container", container, "--email", "bob@example.com", "--json"] + data.options
            )
            let bobToken = try #require((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: String])?["webAuthToken"])
            let tokenIndex = try #require(alice.firstIndex(of: "--web-auth-token"))
            var bob = alice
            bob[tokenIndex + 1] = bobToken
            #expect(try await NimbusBinary.run(["zone", "create", "Trip"] + alice).status == 0)
            let share = try await NimbusBinary.run(["share", "create", "--zone", "Trip", "--invite", "bob@example.com:read-write", "--json"] + alice)
            let url = try #require((try JSONSerialization.jsonObject(with: Data(share.stdout.utf8)) as? [String: Any])?["url"] as? String)
            let accepted = try await NimbusBinary.run(["share", "accept", url, "--json"] + bob)
            let owner = try #require(
                (try JSONSerialization.jsonObject(with: Data(accepted.stdout.utf8)) as? [String: Any])?["ownerRecordName"] as? String
            )
            let query = try await NimbusBinary.run(["record", "query", "--scope", "shared", "--zone", "Trip", "--type", "Note"] + bob)
            #expect(query.status != 0)
            #expect(query.stderr.contains("pass --owner \(owner)"), "\(query.stderr)")
            let named = try await NimbusBinary.run(
                ["record", "query", "--scope", "shared", "--zone", "Trip", "--owner", owner, "--type", "Note"] + bob
            )
            #expect(named.status == 0, "\(named.stderr)")
        }
    }
}
