//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Where asset metadata lives, and which records reference which assets.
///
/// References are kept by the record store itself, in the transaction that saves or deletes
/// the record (see `ZoneTransaction.save`): a saved asset field names its asset, and a saved
/// record whose asset no longer exists fails with `StoreError.Kind.assetNotFound`.
public protocol AssetStore: Sendable {
    /// Records an uploaded asset (its bytes are in the blob store already).
    func saveAsset(_ asset: StoredAsset) async throws

    /// The asset with this identifier, or `nil`.
    func asset(id: String) async throws -> StoredAsset?

    /// Deletes up to `limit` assets that no record references and that were uploaded before
    /// `cutoff`; returns them, so their bytes can be deleted.
    func collectUnreferencedAssets(uploadedBefore cutoff: Int64, limit: Int) async throws -> [StoredAsset]
}
