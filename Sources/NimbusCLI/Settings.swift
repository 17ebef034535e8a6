//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Configuration
import Foundation
import Synchronization
import SystemPackage

/// Where every subcommand reads its settings, through apple/swift-configuration: the process's
/// environment, then the settings file `NIMBUS_CONFIG_FILE` names (lines of `NAME=value`, as
/// a systemd `EnvironmentFile` or a `.env` file). A flag wins over both. A setting set to
/// nothing (or to spaces) counts as not set, as a compose file's `${PORT}` gives when PORT is
/// unset: the same rule for every setting.
enum Settings {
    /// Settings whose values are secrets: the providers mark them so, and `nimbus config`
    /// prints them redacted.
    static let secretNames: Set<String> = [
        "NIMBUS_ENCRYPTION_KEY", "NIMBUS_TOKEN_KEY", "NIMBUS_DATABASE_URL", "NIMBUS_SMTP_URL", "NIMBUS_S3_SECRET_ACCESS_KEY",
        "AWS_SECRET_ACCESS_KEY", "NIMBUS_API_TOKEN", "NIMBUS_WEB_AUTH_TOKEN", "NIMBUS_APPS_API_TOKEN",
    ]

    /// The settings file's variable.
    static let fileVariable = "NIMBUS_CONFIG_FILE"

    /// The settings `load()` read; until then, the environment alone.
    private static let loaded = Mutex<SettingsValues?>(nil)

    /// Reads the settings file, if `NIMBUS_CONFIG_FILE` names one; called once as the command
    /// starts.
    /// - Throws: when the file is missing or malformed, with its path.
    static func load() async throws {
        let environment = EnvironmentVariablesProvider(secretsSpecifier: .specific(secretNames))
        var providers: [any ConfigProvider] = [environment]
        let path = ProcessInfo.processInfo.environment[fileVariable].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        if let path {
            do {
                providers.append(
                    try await EnvironmentVariablesProvider(environmentFilePath: FilePath(path), secretsSpecifier: .specific(secretNames))
                )
            } catch {
                throw SettingsFileFailure(description: "cannot read the settings file \(path) (\(fileVariable)): \(error)")
            }
        }
        loaded.withLock { $0 = SettingsValues(reader: ConfigReader(providers: providers)) }
    }

    /// The settings, as every subcommand reads them.
    static var environment: SettingsValues {
        loaded.withLock { $0 }
            ?? SettingsValues(reader: ConfigReader(provider: EnvironmentVariablesProvider(secretsSpecifier: .specific(secretNames))))
    }
}

/// Settings by their environment variable's name: `Settings.environment["NIMBUS_PORT"]`.
struct SettingsValues: Sendable {
    let reader: ConfigReader

    subscript(name: String) -> String? {
        // One component, the variable's own name: the environment provider encodes it as is.
        guard let value = reader.string(forKey: ConfigKey([name]), isSecret: Settings.secretNames.contains(name)),
            !value.trimmingCharacters(in: .whitespaces).isEmpty
        else { return nil }
        return value
    }
}

/// A settings file that cannot be read.
struct SettingsFileFailure: Error, CustomStringConvertible {
    var description: String
}
