//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// How much a container environment holds, as storage quotas count it.
public struct ContainerStorage: Sendable, Hashable {
    /// The container environment.
    public var environment: ContainerEnvironment
    /// Bytes of records and assets.
    public var bytes: Int64
    /// Owners holding any: users, and the public database.
    public var owners: Int64

    /// Creates a figure.
    public init(environment: ContainerEnvironment, bytes: Int64, owners: Int64) {
        self.environment = environment
        self.bytes = bytes
        self.owners = owners
    }
}
