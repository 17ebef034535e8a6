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
        // Unicode's control characters (category Cc) are exactly C0, DEL and C1; comparing
        // values is much cheaper than looking up the scalar's properties.
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "\(what) must not contain control characters"
        }
        return nil
    }

    /// Whether a record with this name could have been saved: names that break the rule are
    /// answered without asking the store (PostgreSQL's text cannot even hold a NUL to compare).
    public static func isValid(_ name: String) -> Bool {
        violation(in: name, what: "name") == nil
    }
}
