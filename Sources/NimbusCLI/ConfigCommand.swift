//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser

/// `nimbus config`: the settings this process reads, where each is set, secrets redacted.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the settings Nimbus reads from the environment and NIMBUS_CONFIG_FILE, secrets redacted.",
        discussion: """
            A variable of the environment wins over the same one in the settings file; a flag wins \
            over both. A setting set to nothing counts as not set.
            """
    )

    @Flag(help: "Print one JSON object.") var json = false

    /// Every setting a subcommand reads, by its variable's name.
    static let names = [
        "NIMBUS_DATA", "NIMBUS_DATABASE_URL", "NIMBUS_HOSTNAME", "NIMBUS_PORT", "NIMBUS_PUBLIC_URL", "NIMBUS_LOG_LEVEL",
        "NIMBUS_ACCESS_LOG", "NIMBUS_TLS_CERT", "NIMBUS_TLS_KEY", "NIMBUS_ENCRYPTION_KEY", "NIMBUS_TOKEN_KEY", "NIMBUS_MAX_BODY_BYTES",
        "NIMBUS_MAX_CONNECTIONS", "NIMBUS_FIRST_BYTE_TIMEOUT", "NIMBUS_HEADER_TIMEOUT", "NIMBUS_SIGNATURE_WINDOW",
        "NIMBUS_PASSWORD_HASH_COST", "NIMBUS_TOMBSTONE_RETENTION_DAYS", "NIMBUS_INBOX_RETENTION_DAYS", "NIMBUS_NOTIFICATION_DELAY_MS",
        "NIMBUS_PAGES_DIR", "NIMBUS_SIGN_IN_CONFIG", "NIMBUS_SMTP_URL", "NIMBUS_SMTP_CA_FILE", "NIMBUS_APPS", "NIMBUS_APPS_CONTAINER",
        "NIMBUS_APPS_ENVIRONMENT", "NIMBUS_APPS_API_TOKEN", "NIMBUS_ASSET_MAX_BYTES", "NIMBUS_ASSET_RETENTION_HOURS", "NIMBUS_S3_BUCKET",
        "NIMBUS_S3_ENDPOINT", "NIMBUS_S3_REGION", "NIMBUS_S3_KEY_PREFIX", "NIMBUS_S3_ACCESS_KEY_ID", "NIMBUS_S3_SECRET_ACCESS_KEY",
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "NIMBUS_APNS_KEY_FILE", "NIMBUS_APNS_KEY_ID", "NIMBUS_APNS_TEAM_ID",
        "NIMBUS_APNS_TOPIC", "NIMBUS_APNS_CA_FILE", "NIMBUS_APNS_DEVELOPMENT_URL", "NIMBUS_APNS_PRODUCTION_URL", "NIMBUS_URL",
        "NIMBUS_CONTAINER", "NIMBUS_ENVIRONMENT", "NIMBUS_SCOPE", "NIMBUS_PROFILE", "NIMBUS_API_TOKEN", "NIMBUS_WEB_AUTH_TOKEN",
        "NIMBUS_KEY_ID", "NIMBUS_KEY_FILE",
    ]

    func run() throws {
        let settings = Settings.environment
        var set: [(String, String)] = []
        for name in Self.names {
            guard let value = settings[name] else { continue }
            set.append((name, Settings.secretNames.contains(name) ? "<redacted>" : value))
        }
        if json {
            Output.printJSON(Dictionary(uniqueKeysWithValues: set.map { ($0.0, $0.1 as Any) }))
        } else if set.isEmpty {
            print("No settings are set: every one has its default.")
        } else {
            for (name, value) in set { print("\(name)=\(value)") }
        }
    }
}
