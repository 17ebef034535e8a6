//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A configuration describes itself without its password, however it is printed
/// (`"\(configuration)"`, `String(reflecting:)`, `dump`), and so does anything that holds one,
/// such as ``ServerConfiguration`` in the service lifecycle's debug lines.
extension SMTPConfiguration: RedactedDescription {
    /// Every property, with the password replaced by whether it is set.
    var redactedProperties: [(label: String, value: String)] {
        [
            ("host", host),
            ("port", "\(port)"),
            ("security", security.rawValue),
            ("username", username ?? "none"),
            ("password", password == nil ? "none" : "set (redacted)"),
            ("from", from),
            ("fromName", fromName ?? "none"),
            ("additionalTrustRoots", additionalTrustRootsPEM == nil ? "none" : "set"),
            ("timeout", "\(timeout)"),
        ]
    }
}
