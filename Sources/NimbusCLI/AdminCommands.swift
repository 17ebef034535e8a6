//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import Logging
import NimbusEngine
import NimbusModel
import NimbusServer
import NimbusStore

/// `nimbus container ...`
struct ContainerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "container",
        abstract: "Manage containers.",
        subcommands: [Create.self, Configure.self]
    )

    /// `nimbus container configure ID [--app-url-scheme S] [--fallback-url U]`.
    struct Configure: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a container's app URL scheme and fallback URL (where share pages send people), quota and asset limit."
        )

        @OptionGroup var data: DataOptions
        @Argument(help: "The container identifier.") var id: String
        @Option(help: "The app's URL scheme: share pages link to SCHEME://share/{shortGUID}. Empty unsets it.")
        var appURLScheme: String?
        @Option(help: "Where people without the app go; the short GUID is appended. Empty unsets it.")
        var fallbackURL: String?
        @Option(help: "Megabytes of records each user may store (shared records count against their owner); 0 removes the quota.")
        var userQuotaMb: Int64?
        @Option(help: "Megabytes one asset may have (up to 5000); 0 goes back to the server's limit (50 by default).")
        var assetMaxMb: Int64?
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            let settings = try await Admin.run(data) { instance in
                try await instance.accounts.configureContainer(
                    id,
                    appURLScheme: appURLScheme,
                    fallbackURL: fallbackURL,
                    userQuotaBytes: userQuotaMb.map { $0 == 0 ? nil : $0 * 1_000_000 },
                    maximumAssetBytes: assetMaxMb.map { $0 == 0 ? nil : $0 * 1_000_000 }
                )
            }
            Output.print(
                json: json,
                [
                    "container": id, "appURLScheme": settings.appURLScheme ?? "", "fallbackURL": settings.fallbackURL ?? "",
                    "userQuotaBytes": settings.userQuotaBytes.map { "\($0)" } ?? "",
                    "maximumAssetBytes": settings.maximumAssetBytes.map { "\($0)" } ?? "",
                ]
            )
        }
    }

    /// `nimbus container create ID [--environment E]`: prints the environment's API token.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a container environment and its API token.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The container identifier, such as iCloud.com.example.app.") var id: String
        @Option(help: "development or production.") var environment: String = "development"
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            guard let environment = Environment(parsing: environment) else {
                throw CommandFailure(description: "environment must be development or production")
            }
            let result = try await Admin.run(data) { instance in
                try await instance.accounts.createContainer(id, environment: environment)
            }
            Output.print(json: json, ["container": id, "environment": environment.rawValue, "apiToken": result.apiToken])
        }
    }
}

/// `nimbus key ...`
struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Manage server-to-server keys.",
        subcommands: [Add.self, List.self, Revoke.self, Webhook.self]
    )

    /// `nimbus key add --container ID --public-key FILE.pem`: prints the key ID.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a P-256 public key for server-to-server requests.",
            discussion: """
                Make a key pair with openssl:
                  openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem
                  openssl ec -in eckey.pem -pubout -out eckey.pub.pem
                """
        )

        @OptionGroup var data: DataOptions
        @Option(help: "The container the key belongs to.") var container: String
        @Option(name: .customLong("public-key"), help: "The public key, PEM.") var publicKey: String
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            guard let pem = FileManager.default.contents(atPath: publicKey) else {
                throw CommandFailure(description: "cannot read \(publicKey)")
            }
            let keyID = try await Admin.run(data) { instance in
                try await instance.accounts.addServerKey(publicKeyPEM: String(decoding: pem, as: UTF8.self), container: container)
            }
            Output.print(json: json, ["keyID": keyID])
        }
    }

    /// `nimbus key list --container ID`: the container's keys, oldest first.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's server-to-server keys, oldest first.")

        @OptionGroup var data: DataOptions
        @Option(help: "The container.") var container: String
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            let keys = try await Admin.run(data) { instance in try await instance.accounts.serverKeys(ofContainer: container) }
            if json {
                Output.printJSON([
                    "keys": keys.map { ["keyID": $0.key.keyID, "actsAs": $0.key.userRecordName, "createdAt": $0.createdAt] as [String: Any] }
                ])
                return
            }
            if keys.isEmpty { print("No server-to-server keys in \(container).") }
            for entry in keys {
                let created = Date(timeIntervalSince1970: Double(entry.createdAt) / 1000).ISO8601Format()
                print("\(entry.key.keyID)  \(created)  acts as \(entry.key.userRecordName)")
            }
        }
    }

    /// `nimbus key revoke KEY_ID --container ID`: requests signed with it fail from then on.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a server-to-server key.",
            discussion: "A running server stops taking it within five seconds."
        )

        @OptionGroup var data: DataOptions
        @Argument(help: "The key ID (`nimbus key list`).") var keyID: String
        @Option(help: "The container the key belongs to.") var container: String
        @OptionGroup var confirmation: Confirmation

        func run() async throws {
            try confirmation.confirm("revoke the server-to-server key \(keyID) of \(container)")
            try await Admin.run(data) { instance in try await instance.accounts.revokeServerKey(id: keyID, ofContainer: container) }
            print("Revoked \(keyID).")
        }
    }
}

/// Opens the data directory for one admin action and closes it again; errors become messages.
enum Admin {
    static func run<Result: Sendable>(
        _ data: DataOptions,
        _ body: (NimbusInstance) async throws -> Result
    ) async throws -> Result {
        var logger = Logger(label: "nimbus")
        logger.logLevel = .warning
        let instance = try await NimbusInstance.open(data.configuration, logger: logger)
        do {
            return try await instance.withStore { try await body(instance) }
        } catch let error as NimbusError {
            throw CommandFailure(description: error.reason)
        }
    }
}
