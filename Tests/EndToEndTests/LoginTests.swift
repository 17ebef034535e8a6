//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@Suite("nimbus login and logout", .timeLimit(.minutes(2)))
struct LoginTests {
    @Test("login makes an account and keeps its session in a private profile; the client acts as it; logout ends it")
    func loginLogout() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess(DataLocation(directory: directory))
        let container = try #require(server.exported("NIMBUS_CONTAINER"))
        let apiToken = try #require(server.exported("NIMBUS_API_TOKEN"))
        let profile = directory.appendingPathComponent("profile.json").path
        let login = try await NimbusBinary.run(
            ["login", "--anonymous", "Ann", "--profile", profile, "--url", server.url, "--container", container, "--api-token", apiToken, "--json"]
        )
        #expect(login.status == 0, "\(login.stderr)")
        let user = try #require((try JSONSerialization.jsonObject(with: Data(login.stdout.utf8)) as? [String: String])?["userRecordName"])
        let mode = try FileManager.default.attributesOfItem(atPath: profile)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        #expect(try await NimbusBinary.run(["zone", "create", "Notes", "--profile", profile]).status == 0)
        let listed = try await NimbusBinary.run(["zone", "list", "--profile", profile])
        #expect(listed.stdout.contains("Notes  (owner \(user))"), "\(listed.stdout)")

        let logout = try await NimbusBinary.run(["logout", "--profile", profile])
        #expect(logout.status == 0, "\(logout.stderr)")
        let after = try await NimbusBinary.run(["zone", "list", "--profile", profile])
        #expect(after.status != 0)
        #expect(after.stderr.contains("AUTHENTICATION_REQUIRED"))
        #expect(try await server.stop() == 0)
    }
}
