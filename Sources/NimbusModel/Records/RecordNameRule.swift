//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The rule for record names and record types: 1 to 255 bytes of UTF-8 without control
/// characters.
///
/// Names reach SQL, logs and other clients; a NUL or a newline in one is never legitimate and
/// would let two different names look alike to some of them.
public enum RecordNameRule {
    /// The longest name accepted, in UTF-8 bytes (CloudKit's limit).
    public static let maximumLength = 255

    /// Returns why `name` is not a valid record name or type, or `nil` if it is valid.
    /// - Parameter what: What the name is, for the reason ("recordName", "recordType").
    public static func violation(in name: String, what: String) -> String? {
        if name.isEmpty { return "\(what) must not be empty" }
        if name.utf8.count > maximumLength { return "\(what) is longer than \(maximumLength) bytes" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "\(what) must not contain control characters"
        }
        return nil
    }
}
