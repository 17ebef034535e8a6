//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusSQL

/// A configuration describes itself without its secrets: the keys, the database password and
/// the APNs key never appear, however it is printed (`"\(configuration)"`, `String(reflecting:)`,
/// `dump`), and so neither do they when a type that holds it is printed, as the service
/// lifecycle does with every service at debug level.
extension ServerConfiguration: RedactedDescription {
    /// Every property, with each secret replaced by whether it is set.
    var redactedProperties: [(label: String, value: String)] {
        [
            ("dataDirectory", dataDirectory),
            ("databaseURL", databaseURL.map(Self.redactedDatabaseURL) ?? "SQLite"),
            ("hostname", hostname),
            ("port", "\(port)"),
            ("publicBaseURL", publicBaseURL ?? "default"),
            ("fieldEncryptionKey", Redacted.describe(fieldEncryptionKey)),
            ("tokenKey", Redacted.describe(tokenKey)),
            ("maximumBodySize", "\(maximumBodySize)"),
            ("signatureDateWindowSeconds", "\(signatureDateWindowSeconds)"),
            ("tombstoneRetention", tombstoneRetention.map { "\($0)" } ?? "forever"),
            ("inboxRetention", "\(inboxRetention)"),
            ("notificationDelay", "\(notificationDelay)"),
            ("apns", apns.map { "\($0)" } ?? "none"),
            ("maximumConnections", maximumConnections.map { "\($0)" } ?? "from the descriptor limit"),
            ("firstByteTimeout", "\(firstByteTimeout)"),
            ("requestHeadTimeout", "\(requestHeadTimeout)"),
            ("smtp", smtp.map { "\($0)" } ?? "none (mail goes to the log)"),
            ("assets", "\(assets.maximumSize) bytes at most, unreferenced kept \(assets.retention)"),
            ("assetStore", assetStore.map { "\($0)" } ?? "the data directory"),
            ("tls", tls.map { "certificate \($0.files.certificate), key \($0.files.key)" } ?? "none (plain HTTP)"),
        ]
    }

    /// A database URL with its password masked; one that does not parse is not shown at all,
    /// since where its password is cannot be told.
    private static func redactedDatabaseURL(_ url: String) -> String {
        (try? PostgresLocation(url: url)).map { "\($0)" } ?? "(a database URL that does not parse)"
    }
}

/// A value that holds secrets and describes itself without them, however it is printed
/// (`"\(value)"`, `String(reflecting:)`, `dump`): each conformer lists its properties with the
/// secrets already replaced.
protocol RedactedDescription: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Every property, each secret replaced by whether it is set.
    var redactedProperties: [(label: String, value: String)] { get }
}

extension RedactedDescription {
    public var description: String {
        "\(Self.self)(" + redactedProperties.map { "\($0.label): \($0.value)" }.joined(separator: ", ") + ")"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: redactedProperties.map { (label: Optional($0.label), value: $0.value as Any) }, displayStyle: .struct)
    }
}

/// How a secret is described: only whether there is one.
enum Redacted {
    static func describe(_ secret: String?) -> String {
        secret == nil ? "from the data directory" : "set (redacted)"
    }
}
