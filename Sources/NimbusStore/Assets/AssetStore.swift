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
    /// Records an uploaded asset. Its bytes count against its owner's storage quota from now
    /// until it is collected.
    /// - Throws: `StoreError.Kind.quotaExceeded` (nothing saved) past the owner's quota.
    func saveAsset(_ asset: StoredAsset) async throws

    /// What an upload for `tenant` may take, by the container's settings and the owner's quota.
    func uploadAllowance(for tenant: Tenant) async throws -> AssetAllowance

    /// The asset with this identifier, or `nil`.
    func asset(id: String) async throws -> StoredAsset?

    /// Deletes up to `limit` assets that no record references and that were uploaded before
    /// `cutoff`, giving their bytes back to their owners' quotas; returns them, so their bytes
    /// can be deleted.
    func collectUnreferencedAssets(uploadedBefore cutoff: Int64, limit: Int) async throws -> [StoredAsset]
}

/// What an upload may take.
public struct AssetAllowance: Sendable, Hashable {
    /// The container's limit on one asset; `nil`: the server's.
    public var maximumSize: Int64?
    /// The bytes left under the owner's quota; `nil`: no quota.
    public var room: Int64?

    /// Creates an allowance.
    public init(maximumSize: Int64?, room: Int64?) {
        self.maximumSize = maximumSize
        self.room = room
    }
}
