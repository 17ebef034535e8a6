//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import Logging
import NimbusServer

/// Options every subcommand that opens the data directory takes.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "The data directory (default ./nimbus-data, or NIMBUS_DATA).")
    var data: String?

    @Option(
        name: .long,
        help: "A postgres:// URL to keep the data in PostgreSQL instead of SQLite (or NIMBUS_DATABASE_URL)."
    )
    var database: String?

    var directory: String { data ?? Settings.environment["NIMBUS_DATA"] ?? "./nimbus-data" }

    var databaseURL: String? {
        let url = database ?? Settings.environment["NIMBUS_DATABASE_URL"]
        return url?.isEmpty == false ? url : nil
    }

    /// The configuration of the admin subcommands: the data, and keys from the environment, as `serve` reads them.
    var configuration: ServerConfiguration {
        let environment = Settings.environment
        return ServerConfiguration(
            dataDirectory: directory,
            databaseURL: databaseURL,
            fieldEncryptionKey: environment["NIMBUS_ENCRYPTION_KEY"],
            tokenKey: environment["NIMBUS_TOKEN_KEY"]
        )
    }
}

/// Logging for the executable: to standard error, at NIMBUS_LOG_LEVEL (default info).
enum CommandLogging {
    /// - Throws: for a `NIMBUS_LOG_LEVEL` that is not a level (a typo would otherwise log at
    ///   the default level without a word).
    static func bootstrap() throws -> Logger {
        var level = Logger.Level.info
        if let text = Settings.environment["NIMBUS_LOG_LEVEL"] {
            guard let named = Logger.Level(rawValue: text.lowercased()) else {
                let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("NIMBUS_LOG_LEVEL must be one of \(levels), not \(text)")
            }
            level = named
        }
        let chosen = level
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, level: chosen) }
        return Logger(label: "nimbus")
    }
}

/// Prints a result as readable text or, with `--json`, as one JSON object.
enum Output {
    static func print(json: Bool, _ fields: KeyValuePairs<String, String>) {
        if json {
            let object = Dictionary(uniqueKeysWithValues: fields.map { ($0.key, $0.value) })
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            Swift.print(String(decoding: data, as: UTF8.self))
        } else {
            let width = fields.map(\.key.count).max() ?? 0
            for (key, value) in fields {
                Swift.print(key.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
            }
        }
    }

    /// Prints one JSON object on one line, keys sorted.
    static func printJSON(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        Swift.print(String(decoding: data, as: UTF8.self))
    }
}

/// Errors a subcommand reports: the message on standard error and a non-zero exit status.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
}
