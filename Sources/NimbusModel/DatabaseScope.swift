//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Which of a container's databases a request addresses.
///
/// The public database is shared by every user of a container; each user has a private
/// database, and a shared database that shows other users' shared data.
public enum DatabaseScope: String, Sendable, Hashable, CaseIterable, Codable {
    case `public`
    case `private`
    case shared

    /// Parses a scope name, ignoring case; returns `nil` for anything else.
    public init?(parsing text: some StringProtocol) {
        self.init(rawValue: text.lowercased())
    }
}
