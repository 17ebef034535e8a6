//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@Suite("sign-in settings from NIMBUS_SIGN_IN_CONFIG", .timeLimit(.minutes(2)))
struct SignInConfigTests {
    @Test("the file's settings apply at start: a way turned off is refused; nimbus auth show reads them")
    func applied() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("sign-in.json").path
        let secret = directory.appendingPathComponent("secret").path
        try "from-a-file\n".write(toFile: secret, atomically: true, encoding: .utf8)
        try #"""
        [{"container": "iCloud.com.example.nimbus", "environment": "development",
          "settings": {"anonymousEnabled": false, "minimumPasswordLength": 14,
                       "providers": [{"name": "google", "kind": "google", "issuer": "https://accounts.google.com", "clientIDs": ["abc"]}]},
          "clientSecretFiles": {"google": "\#(secret)"}}]
        """#.write(toFile: config, atomically: true, encoding: .utf8)
        let data = DataLocation(directory: directory)
        let server = try await ServerProcess(data, environment: ["NIMBUS_SIGN_IN_CONFIG": config])
        let container = try #require(server.exported("NIMBUS_CONTAINER"))
        let apiToken = try #require(server.exported("NIMBUS_API_TOKEN"))
        let refused = try await runProcess(
            "/usr/bin/env",
            [
                "curl", "-s", "-w", "\n%{http_code}", "\(server.url)/auth/1/\(container)/development/signup?ckAPIToken=\(apiToken)", "-d",
                #"{"name":"Ann"}"#,
            ]
        )
        #expect(refused.stdout.hasSuffix("\n403"), "\(refused.stdout)")
        #expect(refused.stdout.contains("ACCESS_DENIED"))
        let shown = try await NimbusBinary.run(["auth", "show", "--container", container, "--json"] + data.options)
        #expect(shown.stdout.contains(#""anonymousEnabled":false"#), "\(shown.stdout)")
        #expect(shown.stdout.contains(#""minimumPasswordLength":14"#))
        #expect(shown.stdout.contains(#""clientSecret":"(set)""#) && !shown.stdout.contains("from-a-file"))
        #expect(try await server.stop() == 0)
    }

    @Test("a file that does not hold settings stops the start with a message")
    func refused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("sign-in.json").path
        try #"[{"container": "iCloud.x", "environment": "staging", "settings": {}}]"#.write(toFile: config, atomically: true, encoding: .utf8)
        let started = try await runProcess(
            "/usr/bin/env",
            [NimbusBinary.path, "serve", "--port", "0", "--data", directory.appendingPathComponent("data").path],
            environment: ProcessInfo.processInfo.environment.merging(["NIMBUS_SIGN_IN_CONFIG": config]) { $1 }
        )
        #expect(started.status != 0)
        #expect(started.stderr.contains("environment must be development or production, not staging"), "\(started.stderr)")
    }
}
