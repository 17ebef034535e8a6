//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The outcome of one operation of a `records/modify` request, in request order.
public enum RecordResult: Sendable, Hashable {
    /// The record as saved, with its new change tag.
    case saved(Record)
    /// The record was deleted.
    case deleted(recordName: String, recordType: String)
    /// The operation failed and changed nothing.
    case failed(recordName: String, NimbusError)
}
