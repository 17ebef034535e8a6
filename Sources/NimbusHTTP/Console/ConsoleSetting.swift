//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// One of the server's settings as the console shows it: a label and a value that is never a
/// secret (a secret is shown as set or not).
public struct ConsoleSetting: Sendable, Hashable {
    /// What the setting is, for people.
    public var label: String
    /// Its value, or whether it is set.
    public var value: String

    /// Creates a setting.
    public init(label: String, value: String) {
        self.label = label
        self.value = value
    }
}
