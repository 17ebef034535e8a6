//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// Where the client subcommands take their settings from: flags, then `NIMBUS_*` variables,
/// then a profile file; and a record piped in on standard input.
@Suite("nimbus client settings: flags, environment, profile", .timeLimit(.minutes(2)))
struct ClientSettingsTests {
    /// The variables a client subcommand reads, which the test's own environment must not supply.
    private static let settingVariables = [
        "NIMBUS_URL", "NIMBUS_CONTAINER", "NIMBUS_ENVIRONMENT", "NIMBUS_SCOPE", "NIMBUS_API_TOKEN",
        "NIMBUS_WEB_AUTH_TOKEN", "NIMBUS_KEY_ID", "NIMBUS_KEY_FILE", "NIMBUS_PROFILE",
    ]

    @Test("a profile supplies every setting; variables beat it and flags beat both, credentials included; `-` reads stdin; a long fetch draws a bar")
    func precedence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-settings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        let server = try await ServerProcess(data)
        let container = try #require(server.exported("NIMBUS_CONTAINER"))
        let apiToken = try #require(server.exported("NIMBUS_API_TOKEN"))
        let webAuthToken = try #require(server.exported("NIMBUS_WEB_AUTH_TOKEN"))

        let profile = directory.appendingPathComponent("profile.json").path
        let profileSettings = [
            "url": server.url, "container": container, "environment": "development", "scope": "private",
            "apiToken": apiToken, "webAuthToken": webAuthToken,
        ]
        try JSONSerialization.data(withJSONObject: profileSettings).write(to: URL(fileURLWithPath: profile))
        var clean = ProcessInfo.processInfo.environment
        for name in Self.settingVariables { clean[name] = nil }
        // A home without a default profile, so only the files named here are read.
        clean["HOME"] = directory.path

        func nimbus(_ arguments: [String], _ variables: [String: String] = [:], stdin: String? = nil) async throws -> (
            status: Int32, stdout: String, stderr: String
        ) {
            let environment = clean.merging(variables) { _, new in new }
            guard let stdin else { return try await runProcess(NimbusBinary.path, arguments, environment: environment) }
            let quoted = ([NimbusBinary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            return try await runProcess("/bin/bash", ["-c", "printf '%s' '\(stdin)' | \(quoted)"], environment: environment)
        }

        // The profile alone, named by flag and by variable.
        let created = try await nimbus(["zone", "create", "Notes", "--profile", profile])
        #expect(created.status == 0, "\(created.stderr)")
        let listed = try await nimbus(["zone", "list"], ["NIMBUS_PROFILE": profile])
        #expect(listed.stdout.contains("Notes"), "\(listed)")

        // A record dictionary on standard input.
        let piped = try await nimbus(
            ["record", "save", "--zone", "Notes", "-"],
            ["NIMBUS_PROFILE": profile],
            stdin: #"{"recordName":"piped","recordType":"Note","fields":{"title":{"value":"from stdin"}}}"#
        )
        #expect(piped.status == 0, "\(piped.stderr)")
        let fetched = try await nimbus(["record", "get", "--zone", "Notes", "piped", "--json"], ["NIMBUS_PROFILE": profile])
        #expect(fetched.stdout.contains("from stdin"), "\(fetched)")

        // A long fetch shows a bar of how far through the zone's changes it is, page by page.
        for name in ["second", "third"] {
            let saved = try await nimbus(
                ["record", "save", "--zone", "Notes", #"{"recordName":"\#(name)","recordType":"Note"}"#],
                ["NIMBUS_PROFILE": profile]
            )
            #expect(saved.status == 0, "\(saved.stderr)")
        }
        let fetchedInPages = try await nimbus(
            ["changes", "fetch", "--zone", "Notes", "--page-size", "1", "--progress"],
            ["NIMBUS_PROFILE": profile]
        )
        #expect(fetchedInPages.status == 0, "\(fetchedInPages.stderr)")
        let bars = fetchedInPages.stderr.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(bars.count == 2, "one bar for each page with more to come: \(fetchedInPages.stderr)")
        let percents = bars.compactMap { line in
            line.split(separator: "]").last.flatMap { Int($0.split(separator: "%")[0].trimmingCharacters(in: .whitespaces)) }
        }
        #expect(percents.count == 2 && percents[0] > 0 && percents[0] < percents[1] && percents[1] < 100, "\(bars)")
        #expect(bars.allSatisfy { $0.hasSuffix("changes") }, "\(bars)")

        // A variable beats the profile: the public database has no custom zones, and the
        // production environment does not take the development API token.
        let publicZones = try await nimbus(["zone", "list"], ["NIMBUS_PROFILE": profile, "NIMBUS_SCOPE": "public"])
        #expect(publicZones.status == 0, "\(publicZones.stderr)")
        #expect(!publicZones.stdout.contains("Notes"), "\(publicZones)")
        let production = try await nimbus(["zone", "list"], ["NIMBUS_PROFILE": profile, "NIMBUS_ENVIRONMENT": "production"])
        #expect(production.status != 0, "\(production)")
        let wrongContainer = try await nimbus(["zone", "list"], ["NIMBUS_PROFILE": profile, "NIMBUS_CONTAINER": "iCloud.none"])
        #expect(wrongContainer.status != 0, "\(wrongContainer)")
        // ... and a flag beats the variable.
        let flagged = try await nimbus(["zone", "list", "--container", container], ["NIMBUS_PROFILE": profile, "NIMBUS_CONTAINER": "iCloud.none"])
        #expect(flagged.stdout.contains("Notes"), "\(flagged)")

        // Credentials come whole from the first level that names any: a key ID in the profile
        // does not beat an API token in the environment.
        var keyProfileSettings = profileSettings
        keyProfileSettings["apiToken"] = nil
        keyProfileSettings["webAuthToken"] = nil
        keyProfileSettings["keyID"] = "no-such-key"
        keyProfileSettings["keyFile"] = directory.appendingPathComponent("missing.pem").path
        let keyProfile = directory.appendingPathComponent("key-profile.json").path
        try JSONSerialization.data(withJSONObject: keyProfileSettings).write(to: URL(fileURLWithPath: keyProfile))
        let tokenFromEnvironment = try await nimbus(
            ["zone", "list"],
            ["NIMBUS_PROFILE": keyProfile, "NIMBUS_API_TOKEN": apiToken, "NIMBUS_WEB_AUTH_TOKEN": webAuthToken]
        )
        #expect(tokenFromEnvironment.status == 0, "\(tokenFromEnvironment.stderr)")
        #expect(tokenFromEnvironment.stdout.contains("Notes"), "\(tokenFromEnvironment)")
        // Nor does the profile's web auth token complete an API token from the environment: the
        // call is anonymous, and the private database asks for a sign-in.
        let mixed = try await nimbus(["zone", "list"], ["NIMBUS_PROFILE": profile, "NIMBUS_API_TOKEN": apiToken])
        #expect(mixed.status != 0)
        #expect(mixed.stderr.contains("AUTHENTICATION_REQUIRED"), "\(mixed)")
        let keyFromProfile = try await nimbus(["zone", "list"], ["NIMBUS_PROFILE": keyProfile])
        #expect(keyFromProfile.status != 0)
        #expect(keyFromProfile.stderr.contains("key-file"), "\(keyFromProfile)")

        // A server-to-server key by flags and by variables: it signs, and acts on the public database.
        let privateKey = directory.appendingPathComponent("k.pem").path
        let publicKey = directory.appendingPathComponent("k.pub.pem").path
        _ = try await runProcess("/usr/bin/env", ["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", privateKey])
        _ = try await runProcess("/usr/bin/env", ["openssl", "ec", "-in", privateKey, "-pubout", "-out", publicKey])
        let added = try await NimbusBinary.run(["key", "add", "--container", container, "--public-key", publicKey, "--json"] + data.options)
        let keyID = try #require((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: String])?["keyID"], "\(added)")
        let signedByFlags = try await nimbus(
            ["record", "save", "--json", #"{"recordName":"signed","recordType":"Note"}"#, "--key-id", keyID, "--key-file", privateKey],
            ["NIMBUS_URL": server.url, "NIMBUS_CONTAINER": container]
        )
        #expect(signedByFlags.status == 0, "\(signedByFlags.stderr)")
        let signedByVariables = try await nimbus(
            ["record", "get", "signed"],
            ["NIMBUS_URL": server.url, "NIMBUS_CONTAINER": container, "NIMBUS_KEY_ID": keyID, "NIMBUS_KEY_FILE": privateKey]
        )
        #expect(signedByVariables.stdout.contains("signed  Note"), "\(signedByVariables)")
        #expect(try await server.stop() == 0)
    }
}

@Suite("the CLI without a server", .timeLimit(.minutes(1)))
struct CLIWithoutServerTests {
    @Test("pointed at a port where nothing listens, or an unknown host, the CLI says so within seconds")
    func cannotConnect() async throws {
        // A port nothing listens on: 9 (discard) is not served on the test machines.
        for url in ["http://127.0.0.1:9", "http://nimbus-test.invalid:8080"] {
            for command in [["zone", "list"], ["record", "save", #"{"recordName":"n","recordType":"Note"}"#]] {
                let started = ContinuousClock.now
                let result = try await NimbusBinary.run(
                    command + ["--url", url, "--container", "iCloud.x", "--api-token", "abc", "--web-auth-token", "def"]
                )
                #expect(result.status != 0)
                #expect(result.stderr.contains("cannot connect to \(url)"), "\(result.stderr)")
                #expect(result.stderr.contains("is `nimbus serve` running?"), "\(result.stderr)")
                // Seconds, not the minutes an operating system's connect timeout takes; the bound
                // leaves room for a machine busy with the rest of the suite.
                #expect(ContinuousClock.now - started < .seconds(15), "\(command) took \(ContinuousClock.now - started)")
            }
        }
    }
}
