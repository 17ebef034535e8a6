//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A stored API token: its hash (the token itself is shown once, when it is made) and when.
public struct APITokenRecord: Sendable, Hashable {
    /// The token's SHA-256, hex.
    public var hash: String
    /// When it was made, in milliseconds since 1970.
    public var createdAt: Int64

    /// Creates a record.
    public init(hash: String, createdAt: Int64) {
        self.hash = hash
        self.createdAt = createdAt
    }
}
