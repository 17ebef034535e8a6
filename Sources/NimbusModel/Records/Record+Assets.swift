//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

extension Record {
    /// The stored assets the record's fields name (assets cannot be encrypted fields).
    package var assetIDs: Set<String> {
        var found: Set<String> = []
        for value in fields.values {
            switch value {
            case .asset(let asset): if let id = asset.assetID { found.insert(id) }
            case .list(.asset, let elements):
                for case .asset(let asset) in elements { if let id = asset.assetID { found.insert(id) } }
            default: break
            }
        }
        return found
    }
}
