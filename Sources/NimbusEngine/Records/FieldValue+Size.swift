//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

extension FieldValue {
    /// About how many bytes the value takes stored, for the 1 MB record limit; assets count only
    /// their metadata, as CloudKit excludes asset data from the limit.
    var estimatedSize: Int {
        switch self {
        case .string(let text): text.utf8.count + 16
        case .int64, .timestamp, .double: 24
        case .bytes(let data), .encryptedBytes(let data): data.count * 4 / 3 + 16
        case .reference(let reference): reference.recordName.utf8.count + 48
        case .asset: 256
        case .location: 128
        case .list(_, let elements): elements.reduce(16) { $0 + $1.estimatedSize }
        }
    }
}
