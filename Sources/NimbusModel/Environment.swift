//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The environment of a container: development and production hold separate data.
///
/// CloudKit clients sometimes send the environment in upper case (CloudKitPy's constants),
/// so ``init(parsing:)`` matches case-insensitively.
public enum Environment: String, Sendable, Hashable, CaseIterable, Codable {
    case development
    case production

    /// Parses an environment name, ignoring case; returns `nil` for anything else.
    public init?(parsing text: some StringProtocol) {
        self.init(rawValue: text.lowercased())
    }
}
