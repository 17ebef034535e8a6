//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// CloudKit's rule for custom zone names: 1 to 255 ASCII characters, not starting with `_`.
public enum ZoneNameRule {
    /// The longest zone name CloudKit accepts.
    public static let maximumLength = 255

    /// Returns the reason a name is not a valid custom zone name, or `nil` if it is valid.
    public static func violation(in name: String) -> String? {
        if name.isEmpty { return "zone name must not be empty" }
        if name.utf8.count > maximumLength { return "zone name is longer than \(maximumLength) characters" }
        if !name.allSatisfy(\.isASCII) { return "zone name must be ASCII" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "zone name must not contain control characters"
        }
        if name.hasPrefix("_") { return "zone name must not start with '_'" }
        return nil
    }
}
