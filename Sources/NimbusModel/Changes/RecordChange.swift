//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A record's latest state in a change feed: saved, or deleted.
public enum RecordChange: Sendable, Hashable {
    /// The record exists; this is its current state.
    case saved(Record)
    /// The record was deleted.
    case deleted(Tombstone)
}
