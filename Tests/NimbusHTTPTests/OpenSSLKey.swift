//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import NimbusTestSupport

/// A P-256 key pair made by the `openssl` command line tool, as developers make them.
struct OpenSSLKey {
    let privateKey: P256.Signing.PrivateKey
    let publicKeyPEM: String

    static func make() async throws -> OpenSSLKey {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let privatePath = directory.appendingPathComponent("eckey.pem").path
        let publicPath = directory.appendingPathComponent("eckey.pub.pem").path
        try await run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", privatePath])
        try await run(["ec", "-in", privatePath, "-pubout", "-out", publicPath])
        return OpenSSLKey(
            privateKey: try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: privatePath, encoding: .utf8)),
            publicKeyPEM: try String(contentsOfFile: publicPath, encoding: .utf8)
        )
    }

    private static func run(_ arguments: [String]) async throws {
        let result = try await ProcessLaunch.runToCompletion("/usr/bin/env", ["openssl"] + arguments)
        guard result.status == 0 else { throw FixtureFailure("openssl \(arguments.first ?? "") failed: \(result.stderr)") }
    }
}
