//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A configuration describes itself without its password, however it is printed
/// (`"\(configuration)"`, `String(reflecting:)`, `dump`), and so does anything that holds one,
/// such as ``ServerConfiguration`` in the service lifecycle's debug lines.
extension SMTPConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "SMTPConfiguration("
            + redactedProperties.map { "\($0.label): \($0.value)" }.joined(separator: ", ")
            + ")"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: redactedProperties.map { (label: Optional($0.label), value: $0.value as Any) }, displayStyle: .struct)
    }

    /// Every property, with the password replaced by whether it is set.
    private var redactedProperties: [(label: String, value: String)] {
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
