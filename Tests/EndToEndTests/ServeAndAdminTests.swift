//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// Drives the real `nimbus` executable: `serve`, the admin subcommands against a running
/// server's data directory, the README's quick start, and shutdown.
@Suite("nimbus serve and the admin subcommands", .timeLimit(.minutes(2)))
struct ServeAndAdminTests {
    private func withDataDirectory(_ body: (DataLocation) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(DataLocation(directory: directory))
    }

    @Test("the README quick start works when pasted against a fresh server")
    func readmeQuickStart() async throws {
        try await withDataDirectory { data in
            let server = try await ServerProcess(data)
            let readme = try String(contentsOf: NimbusBinary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
            let begin = try #require(readme.range(of: "<!-- quickstart:begin -->"))
            let end = try #require(readme.range(of: "<!-- quickstart:end -->"))
            let script = readme[begin.upperBound..<end.lowerBound]
                .split(separator: "\n").filter { !$0.hasPrefix("```") }.joined(separator: "\n")
            var environment = ProcessInfo.processInfo.environment
            // Every line as printed; with `--port 0` the URL names the port the server got.
            for name in ["NIMBUS_URL", "NIMBUS_CONTAINER", "NIMBUS_API_TOKEN", "NIMBUS_WEB_AUTH_TOKEN"] {
                let value: String = try #require(server.exported(name), "first start did not print \(name)")
                environment[name] = value
            }
            #expect(environment["NIMBUS_URL"] == server.url)
            let result = try await runProcess("/bin/bash", ["-euo", "pipefail", "-c", script], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains(#""zoneName":"Notes""#))
            #expect(result.stdout.components(separatedBy: "Hello, Nimbus").count >= 4, "\(result.stdout)")
            #expect(result.stdout.contains(#""moreComing":false"#), "\(result.stdout)")
            #expect(try await server.stop() == 0)
        }
    }

    @Test("the README's client subcommands work when pasted: zone, record save and query, changes fetch")
    func readmeClientQuickStart() async throws {
        try await withDataDirectory { data in
            let server = try await ServerProcess(data)
            let readme = try String(contentsOf: NimbusBinary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
            let begin = try #require(readme.range(of: "<!-- quickstart-cli:begin -->"))
            let end = try #require(readme.range(of: "<!-- quickstart-cli:end -->"))
            let script = readme[begin.upperBound..<end.lowerBound]
                .split(separator: "\n").filter { !$0.hasPrefix("```") }.joined(separator: "\n")
            // `swift run -q nimbus ARGS` as the README says it, without building again: a shell
            // function that runs the built executable with the same arguments. (Not a script on
            // PATH: a file just written may still be open in a child another test is starting,
            // and executing it then fails with "text file busy".)
            let shim = "swift() { [ \"$1 $2 $3\" = \"run -q nimbus\" ] || return 97; shift 3; '\(NimbusBinary.path)' \"$@\"; }\n"
            var environment = ProcessInfo.processInfo.environment
            for name in ["NIMBUS_URL", "NIMBUS_CONTAINER", "NIMBUS_API_TOKEN", "NIMBUS_WEB_AUTH_TOKEN"] {
                let value: String = try #require(server.exported(name), "first start did not print \(name)")
                environment[name] = value
            }
            let result = try await runProcess("/bin/bash", ["-euo", "pipefail", "-c", shim + script], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("created Notes"), "\(result.stdout)")
            // Saved, found by the query, and in the change feed: three times.
            #expect(result.stdout.components(separatedBy: "hello  Note  tag").count == 4, "\(result.stdout)")
            #expect(result.stdout.contains("syncToken: "), "\(result.stdout)")
            #expect(try await server.stop() == 0)
        }
    }

    @Test("NIMBUS_DATA, NIMBUS_PORT and NIMBUS_MAX_BODY_BYTES are read; links name the port a server on port 0 got; a bad port is refused")
    func environmentVariables() async throws {
        try await withDataDirectory { data in
            let database = data.database.postgresURL.map { ["--database", $0] } ?? []
            let server = try await ServerProcess(
                data,
                environment: ["NIMBUS_DATA": data.directory, "NIMBUS_PORT": "0", "NIMBUS_MAX_BODY_BYTES": "1048576"],
                arguments: ["serve"] + database
            )
            #expect(server.exported("NIMBUS_URL") == server.url)
            let contents = try FileManager.default.contentsOfDirectory(atPath: data.directory)
            #expect(!contents.isEmpty, "nothing was written to NIMBUS_DATA")
            // The sign-in link of a request without a user names the real port, not 0.
            let container = try #require(server.exported("NIMBUS_CONTAINER"))
            let apiToken = try #require(server.exported("NIMBUS_API_TOKEN"))
            let anonymous = try await runProcess(
                "/usr/bin/env",
                ["curl", "-s", "--url-query", "ckAPIToken=\(apiToken)", "\(server.url)/database/1/\(container)/development/private/zones/list"]
            )
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(anonymous.stdout.utf8)) as? [String: Any])
            #expect((answer["redirectURL"] as? String)?.hasPrefix(server.url + "/") == true, "\(answer)")
            // NIMBUS_MAX_BODY_BYTES sets the request body limit (1 MiB here, 16 MiB by default).
            let body = data.directory + "/large.json"
            try Data(repeating: UInt8(ascii: " "), count: 2 << 20).write(to: URL(fileURLWithPath: body))
            let large = try await runProcess(
                "/usr/bin/env",
                [
                    "curl", "-s", "--data-binary", "@" + body, "--url-query", "ckAPIToken=\(apiToken)",
                    "\(server.url)/database/1/\(container)/development/public/records/lookup",
                ]
            )
            #expect(large.stdout.contains("larger than the 1048576-byte limit"), "\(large.stdout)")
            #expect(try await server.stop() == 0)

            var environment = ProcessInfo.processInfo.environment
            environment["NIMBUS_PORT"] = "eighty"
            // Under `timeout`: were the value taken for the default port, the server would run on.
            let refused = try await runProcess(
                "/usr/bin/env",
                ["timeout", "20", NimbusBinary.path, "serve"] + data.options,
                environment: environment
            )
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("NIMBUS_PORT must be a whole number"), "\(refused.stderr)")
        }
    }

    @Test("a first start that cannot listen (the port is taken) still prints its tokens, which are shown only once")
    func quickstartWhenThePortIsTaken() async throws {
        try await withDataDirectory { data in
            let holder = try await ServerProcess(data)
            let port = try #require(holder.url.split(separator: ":").last.map(String.init))
            let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: fresh) }
            let second = DataLocation(directory: fresh)
            let failed = try await runProcess(
                "/usr/bin/env",
                ["timeout", "20", NimbusBinary.path, "serve", "--port", port] + second.options
            )
            #expect(failed.status != 0)
            #expect(failed.stdout.contains("export NIMBUS_API_TOKEN="), "\(failed)")
            #expect(failed.stdout.contains("export NIMBUS_URL=http://127.0.0.1:\(port)"), "\(failed.stdout)")
            #expect(try await holder.stop() == 0)
        }
    }

    @Test("SIGTERM: the listener closes at once, a request still arriving is answered, and its write is kept")
    func gracefulShutdown() async throws {
        try await withDataDirectory { data in
            let server = try await ServerProcess(data)
            let container = try #require(server.exported("NIMBUS_CONTAINER"))
            let query = try [
                "--url-query", "ckAPIToken=\(#require(server.exported("NIMBUS_API_TOKEN")))",
                "--url-query", "ckWebAuthToken=\(#require(server.exported("NIMBUS_WEB_AUTH_TOKEN")))",
            ]
            let database = "\(server.url)/database/1/\(container)/development/private"
            // A 600 KB save sent at 100 KB/s: still arriving when SIGTERM comes.
            let body = data.directory + "/slow.json"
            let text = String(repeating: "x", count: 600_000)
            try Data(
                #"{"operations":[{"operationType":"create","record":{"recordName":"inflight","recordType":"Note","fields":{"text":{"value":"\#(text)"}}}}]}"#
                    .utf8
            )
            .write(to: URL(fileURLWithPath: body))
            let upload = Task {
                try await runProcess(
                    "/usr/bin/env",
                    ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--limit-rate", "100K", "--data-binary", "@" + body] + query
                        + ["\(database)/records/modify"]
                )
            }
            // SIGTERM once the upload's connection is open (on a busy machine curl starts late);
            // where `ss` is missing, a second's wait.
            let port = try #require(server.url.split(separator: ":").last.map(String.init))
            for _ in 0..<100 {
                let connections = try? await runProcess("/usr/bin/env", ["ss", "-Htn", "state", "established", "( dport = :\(port) )"])
                guard let connections, connections.status == 0 else {
                    try await Task.sleep(for: .seconds(1))
                    break
                }
                if !connections.stdout.isEmpty { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            try await Task.sleep(for: .milliseconds(300))
            let stopping = Task { try await server.stop() }
            // New connections are refused within moments of SIGTERM, long before the upload ends.
            var refusedAfter: Int?
            for attempt in 0..<30 where refusedAfter == nil {
                try await Task.sleep(for: .milliseconds(100))
                let late = try await runProcess(
                    "/usr/bin/env",
                    ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "1", "\(server.url)/health"]
                )
                if late.stdout == "000" { refusedAfter = attempt }
            }
            #expect(refusedAfter != nil, "new connections were still served 3 s after SIGTERM")
            #expect(try await upload.value.stdout == "200", "the request in flight was not answered")
            #expect(try await stopping.value == 0)

            // Started again on the same data, the server has the write it acknowledged.
            let again = try await ServerProcess(data)
            let lookup = try await runProcess(
                "/usr/bin/env",
                ["curl", "-s", "--data", #"{"records":[{"recordName":"inflight"}],"desiredKeys":[]}"#] + query
                    + ["\(again.url)/database/1/\(container)/development/private/records/lookup"]
            )
            #expect(lookup.stdout.contains(#""recordName":"inflight","recordType":"Note""#), "\(lookup.stdout)")
            #expect(try await again.stop() == 0)
        }
    }

    @Test("client subcommands: JSON output, a token that resumes the feed, errors on stderr with a failing status")
    func clientSubcommands() async throws {
        try await withDataDirectory { data in
            let server = try await ServerProcess(data)
            let client = try server.clientOptions()
            func nimbus(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
                try await NimbusBinary.run(arguments + client)
            }
            #expect(try await nimbus(["zone", "create", "Notes"]).status == 0)
            let zones = try await nimbus(["zone", "list", "--json"])
            #expect(zones.stdout.contains(#""zoneName":"Notes""#), "\(zones)")
            let first = try await nimbus(["changes", "fetch", "--zone", "Notes", "--json"])
            let token = try #require(
                (try JSONSerialization.jsonObject(with: Data(first.stdout.split(separator: "\n").last!.utf8)) as? [String: Any])?["syncToken"]
                    as? String
            )
            let saved = try await nimbus([
                "record", "save", "--zone", "Notes", "--json", #"{"recordName":"n1","recordType":"Note","fields":{"count":{"value":3}}}"#,
            ])
            #expect(saved.status == 0, "\(saved.stderr)")
            #expect(saved.stdout.contains(#""recordChangeTag""#))
            let later = try await nimbus(["changes", "fetch", "--zone", "Notes", "--token", token])
            #expect(later.stdout.contains("n1  Note"), "\(later)")
            let query = try await nimbus(["record", "query", "--zone", "Notes", "--type", "Note", "--filter", "count GREATER_THAN 2"])
            #expect(query.stdout.contains("  count  3"), "\(query)")
            #expect(try await nimbus(["record", "query", "--zone", "Notes", "--type", "Note", "--filter", "count >= 3"]).stdout.contains("n1  Note"))
            #expect(try await nimbus(["record", "query", "--zone", "Notes", "--type", "Note", "--filter", "count < 3"]).stdout.isEmpty)
            // A quoted value is a string, whatever it looks like.
            let numeric = try await nimbus([
                "record", "save", "--zone", "Notes", #"{"recordName":"code","recordType":"Note","fields":{"pin":{"value":"0042"}}}"#,
            ])
            #expect(numeric.status == 0, "\(numeric.stderr)")
            let byString = try await nimbus(["record", "query", "--zone", "Notes", "--type", "Note", "--filter", #"pin = "0042""#])
            #expect(byString.stdout.contains("code  Note"), "\(byString)")
            let everywhere = try await nimbus(["record", "query", "--all-zones", "--type", "Note", "--json"])
            #expect(everywhere.stdout.contains(#""zoneName":"Notes""#), "\(everywhere)")
            #expect(try await nimbus(["record", "query", "--all-zones", "--type", "Note"]).stdout.contains("Notes/n1  Note"))
            let both = try await nimbus(["record", "query", "--all-zones", "--zone", "Notes", "--type", "Note"])
            #expect(both.status != 0)
            #expect(both.stderr.contains("leave out --zone"), "\(both)")
            #expect(try await nimbus(["record", "delete", "--zone", "Notes", "n1", "--yes"]).stdout.contains("deleted n1"))

            let missing = try await nimbus(["record", "get", "--zone", "Notes", "n1"])
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("NOT_FOUND"), "\(missing)")
            let badFilter = try await nimbus(["record", "query", "--zone", "Notes", "--type", "Note", "--filter", "count"])
            #expect(badFilter.status != 0)
            #expect(badFilter.stderr.contains("field COMPARATOR value"), "\(badFilter)")
            let anonymous = try await NimbusBinary.run(["zone", "list", "--url", server.url, "--container", "iCloud.x"])
            #expect(anonymous.status != 0)
            #expect(anonymous.stderr.contains("no credentials"), "\(anonymous)")
            #expect(try await server.stop() == 0)
        }
    }

    @Test("schema subcommands: export the development schema, deploy it after a dry run, refuse a bad file")
    func schemaSubcommands() async throws {
        try await withDataDirectory { data in
            let server = try await ServerProcess(data)
            let container = try #require(server.exported("NIMBUS_CONTAINER"))
            let client = try [
                "--url", server.url, "--container", container, "--api-token", #require(server.exported("NIMBUS_API_TOKEN")),
                "--web-auth-token", #require(server.exported("NIMBUS_WEB_AUTH_TOKEN")),
            ]
            let saved = try await NimbusBinary.run(
                ["record", "save", "--json", #"{"recordName": "n1", "recordType": "Note", "fields": {"title": {"value": "Hi"}}}"#] + client
            )
            #expect(saved.status == 0, "\(saved.stderr)")
            let exported = try await NimbusBinary.run(["schema", "export", "--container", container] + data.options)
            #expect(exported.stdout.contains(#""title":{"type":"STRING","queryable":true,"sortable":true,"searchable":true}"#), "\(exported)")

            let planned = try await NimbusBinary.run(["schema", "deploy", "--container", container, "--dry-run"] + data.options)
            #expect(planned.stdout.contains("+ record type Note") && planned.stdout.contains("dry run: nothing changed"), "\(planned)")
            let deployed = try await NimbusBinary.run(["schema", "deploy", "--container", container] + data.options)
            #expect(deployed.status == 0 && deployed.stdout.contains("changes applied to \(container) production"), "\(deployed)")
            let again = try await NimbusBinary.run(["schema", "deploy", "--container", container] + data.options)
            #expect(again.stdout.contains("already has this schema"), "\(again)")
            let production = try await NimbusBinary.run(["schema", "export", "--container", container, "--environment", "production"] + data.options)
            #expect(production.stdout == exported.stdout, "production has what development has")

            let badFile = data.directory + "/bad-schema.json"
            try #"{"recordTypes": {"Note": {"fields": {"n": {"type": "NUMBER"}}}}}"#.write(toFile: badFile, atomically: true, encoding: .utf8)
            let refused = try await NimbusBinary.run(["schema", "import", badFile, "--container", container] + data.options)
            #expect(refused.status != 0 && refused.stderr.contains("unknown field type 'NUMBER'"), "\(refused)")
            #expect(try await server.stop() == 0)
        }
    }

    @Test("share subcommands: the owner shares a zone by email, the invitee accepts, sees it, leaves, is invited again and removed")
    func shareSubcommands() async throws {
        try await withDataDirectory { data in
            let server = try await ServerProcess(data)
            let container = try #require(server.exported("NIMBUS_CONTAINER"))
            let common = try ["--url", server.url, "--container", container, "--api-token", #require(server.exported("NIMBUS_API_TOKEN"))]
            let alice = try common + ["--web-auth-token", #require(server.exported("NIMBUS_WEB_AUTH_TOKEN"))]
            let added = try await NimbusBinary.run(
                ["user", "add", "Bob", "--container", container, "--email", "bob@example.com", "--json"] + data.options
            )
            let bobToken = try #require((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: String])?["webAuthToken"])
            let bob = common + ["--web-auth-token", bobToken]
            func json(_ result: (status: Int32, stdout: String, stderr: String)) throws -> [String: Any] {
                #expect(result.status == 0, "\(result.stderr)")
                return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            }

            #expect(try await NimbusBinary.run(["zone", "create", "Trip"] + alice).status == 0)
            let share = try await json(
                NimbusBinary.run(["share", "create", "--zone", "Trip", "--invite", "bob@example.com:read-write", "--json"] + alice)
            )
            let shareURL = try #require(share["url"] as? String)
            #expect(shareURL.hasPrefix(server.url + "/share/"))
            let accepted = try await json(NimbusBinary.run(["share", "accept", shareURL, "--json"] + bob))
            let owner = try #require(accepted["ownerRecordName"] as? String)
            let shared = try await NimbusBinary.run(["zone", "list", "--scope", "shared"] + bob)
            #expect(shared.stdout.contains("Trip"), "\(shared)")
            let left = try await NimbusBinary.run(["share", "leave", "--zone", "Trip", "--owner", owner] + bob)
            #expect(left.status == 0, "\(left.stderr)")
            #expect(!(try await NimbusBinary.run(["zone", "list", "--scope", "shared"] + bob).stdout.contains("Trip")))

            // Invited again and accepted, then removed by the owner.
            let invited = try await NimbusBinary.run(["share", "invite", "--zone", "Trip", "--invite", "bob@example.com"] + alice)
            #expect(invited.status == 0 && invited.stdout.contains("bob@example.com"), "\(invited)")
            #expect(try await NimbusBinary.run(["share", "accept", shareURL] + bob).status == 0)
            #expect(try await NimbusBinary.run(["zone", "list", "--scope", "shared"] + bob).stdout.contains("Trip"))
            let removed = try await NimbusBinary.run(["share", "remove", "--zone", "Trip", "bob@example.com", "--yes"] + alice)
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(!(try await NimbusBinary.run(["zone", "list", "--scope", "shared"] + bob).stdout.contains("Trip")))
            let unknown = try await NimbusBinary.run(["share", "remove", "--zone", "Trip", "carol@example.com", "--yes"] + alice)
            #expect(unknown.status != 0 && unknown.stderr.contains("not a participant"), "\(unknown)")
            #expect(try await server.stop() == 0)
        }
    }

    @Test("admin subcommands work on the data directory of a running server; SIGTERM shuts down cleanly")
    func adminWhileServing() async throws {
        try await withDataDirectory { data in
            let server = try await ServerProcess(data)
            let logLines = server.stderr.split(separator: "\n").filter { !$0.isEmpty }
            #expect(logLines.count == 1 && logLines.first?.contains("Nimbus ready") == true, "\(logLines)")
            let container = try await NimbusBinary.run(["container", "create", "iCloud.e2e", "--environment", "production", "--json"] + data.options)
            #expect(container.status == 0, "\(container.stderr)")
            let created = try JSONSerialization.jsonObject(with: Data(container.stdout.utf8)) as? [String: String]
            #expect(created?["container"] == "iCloud.e2e" && created?["environment"] == "production")
            let apiToken = try #require(created?["apiToken"])
            #expect(apiToken.count == 64)

            let user = try await NimbusBinary.run(
                [
                    "user", "add", "Ann Example", "--container", "iCloud.e2e", "--email", "ann@example.com", "--json",
                ] + data.options
            )
            #expect(user.status == 0, "\(user.stderr)")
            let added = try JSONSerialization.jsonObject(with: Data(user.stdout.utf8)) as? [String: String]
            let token = try #require(added?["webAuthToken"])

            let keyDirectory = data.directory + "/keys"
            try FileManager.default.createDirectory(atPath: keyDirectory, withIntermediateDirectories: true)
            _ = try await runProcess(
                "/usr/bin/env",
                ["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", keyDirectory + "/k.pem"]
            )
            _ = try await runProcess(
                "/usr/bin/env",
                ["openssl", "ec", "-in", keyDirectory + "/k.pem", "-pubout", "-out", keyDirectory + "/k.pub.pem"]
            )
            let key = try await NimbusBinary.run(
                ["key", "add", "--container", "iCloud.e2e", "--public-key", keyDirectory + "/k.pub.pem"] + data.options
            )
            #expect(key.status == 0, "\(key.stderr)")
            #expect(key.stdout.contains("keyID"))
            let keyID = String(key.stdout.split(separator: " ").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let keys = try await NimbusBinary.run(["key", "list", "--container", "iCloud.e2e"] + data.options)
            #expect(keys.stdout.contains(keyID) && keyID.count == 64, "\(keys.stdout)")
            // Revoking asks first; without a terminal, it says to pass --yes and changes nothing.
            let unconfirmed = try await NimbusBinary.run(["key", "revoke", keyID, "--container", "iCloud.e2e"] + data.options)
            #expect(unconfirmed.status != 0 && unconfirmed.stderr.contains("--yes"))
            let revoked = try await NimbusBinary.run(["key", "revoke", keyID, "--container", "iCloud.e2e", "--yes"] + data.options)
            #expect(revoked.status == 0, "\(revoked.stderr)")
            let emptied = try await NimbusBinary.run(["key", "list", "--container", "iCloud.e2e"] + data.options)
            #expect(emptied.stdout.contains("No server-to-server keys"), "\(emptied.stdout)")

            // The running server sees what the admin commands wrote.
            let current = try await runProcess(
                "/usr/bin/env",
                [
                    "curl", "-s", "--url-query", "ckAPIToken=\(apiToken)", "--url-query", "ckWebAuthToken=\(token)",
                    "\(server.url)/database/1/iCloud.e2e/production/public/users/current",
                ]
            )
            #expect(current.stdout.contains(#""firstName":"Ann""#), "\(current.stdout)")

            // Ann shares a record; the operator sees the share and its participants.
            let database = "\(server.url)/database/1/iCloud.e2e/production/private"
            for (operation, body) in [
                ("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#),
                (
                    "records/modify",
                    #"{"zoneID":{"zoneName":"Lists"},"operations":[{"operationType":"create","record":{"recordName":"list1","recordType":"List"}},{"operationType":"create","record":{"recordName":"share1","recordType":"cloudkit.share","forRecord":{"recordName":"list1"},"participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"bea@example.com"}}}]}}]}"#
                ),
            ] {
                let saved = try await runProcess(
                    "/usr/bin/env",
                    [
                        "curl", "-s", "-X", "POST", "--url-query", "ckAPIToken=\(apiToken)", "--url-query", "ckWebAuthToken=\(token)",
                        "-d", body, "\(database)/\(operation)",
                    ]
                )
                #expect(!saved.stdout.contains("serverErrorCode"), "\(saved.stdout)")
            }
            let annName = try #require(added?["userRecordName"])
            let listed = try await NimbusBinary.run(
                [
                    "share", "list", "--container", "iCloud.e2e", "--environment", "production", "--user", annName, "--json",
                ] + data.options
            )
            #expect(listed.status == 0, "\(listed.stderr)")
            let share = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
            #expect(share?["share"] as? String == "share1" && share?["root"] as? String == "list1")
            let participants = share?["participants"] as? [[String: String]] ?? []
            #expect(participants.map { $0["role"] ?? "" } == ["OWNER", "PRIVATE_USER"])
            #expect(participants.last?["participant"] == "bea@example.com" && participants.last?["acceptance"] == "PENDING")
            let table = try await NimbusBinary.run(
                ["share", "list", "--container", "iCloud.e2e", "--environment", "production", "--user", annName] + data.options
            )
            // The same columns as the client's share commands print, aligned.
            let header = try #require(table.stdout.split(separator: "\n").first { $0.contains("PARTICIPANT") })
            #expect(
                header.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true) == [
                    "PARTICIPANT", "ROLE", "PERMISSION", "ACCEPTANCE",
                ]
            )

            let failure = try await NimbusBinary.run(["user", "add", "Nobody", "--container", "iCloud.missing"] + data.options)
            #expect(failure.status != 0)
            #expect(failure.stderr.contains("iCloud.missing"))

            #expect(try await server.stop() == 0)
            if !data.database.isPostgres {
                let check = try await runProcess("/usr/bin/env", ["sqlite3", data.database.sqlitePath, "PRAGMA integrity_check"])
                #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
            }
        }
    }
}
