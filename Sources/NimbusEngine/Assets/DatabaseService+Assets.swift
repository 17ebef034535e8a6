//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// An upload URL's token, for the record and field it was asked for.
public struct AssetUploadToken: Sendable, Hashable {
    /// The record.
    public var recordName: String
    /// The field.
    public var fieldName: String
    /// The token of the upload URL (`/assets/1/upload/{token}`).
    public var token: String
}

extension DatabaseService {
    /// The most upload URLs one request may ask for, as CloudKit's.
    public static let maximumUploadTokens = 200

    /// Upload URLs for assets of records of one zone (CKWS `assets/upload`).
    ///
    /// The caller must be able to write to the zone: their own (private), a shared zone where
    /// they are a read-write participant, or the public database as a signed-in user. Whether
    /// the record itself may be written is decided when it is saved with the receipt.
    /// - Throws: `.badRequest` for no tokens, too many, or a bad field name; `.zoneNotFound` for a
    ///   zone the caller cannot write to (the same answer as for one that does not exist).
    public func assetUploadURLs(
        _ requests: [AssetUploadRequest],
        inZone zoneID: ZoneID?,
        access: DatabaseAccess
    ) async throws(NimbusError) -> [AssetUploadToken] {
        guard !requests.isEmpty else { throw .badRequest("tokens must name at least one asset") }
        guard requests.count <= Self.maximumUploadTokens else {
            throw .limitExceeded("a request may ask for at most \(Self.maximumUploadTokens) upload URLs, this one asks for \(requests.count)")
        }
        // Only a signed-in user may write.
        _ = try writer(access)
        let target = try await target(zone: zoneID, access: access)
        if let shareAccess = target.shareAccess, !shareAccess.participations.values.contains(where: \.canWrite) {
            throw NimbusError.zoneNotFound
        }
        if access.scope == .private, target.zoneName != ZoneID.defaultZoneName {
            // An upload for a zone that does not exist is refused now, not at the save.
            let zone = try await store { try await records.zone(named: target.zoneName, of: target.tenant) }
            guard zone != nil else { throw NimbusError.zoneNotFound }
        }
        let expires = clock.millisecondsSince1970 + AssetTokens.uploadLifetime
        let tokens = AssetTokens(sealer: sealer)
        var answers: [AssetUploadToken] = []
        for request in requests {
            if let violation = FieldRules.nameViolation(request.fieldName) { throw .badRequest(violation) }
            let recordName = request.recordName.flatMap { $0.isEmpty ? nil : $0 } ?? makeRecordName()
            if let violation = RecordNameRule.violation(in: recordName, what: "recordName") { throw .badRequest(violation) }
            let grant = AssetUploadGrant(
                container: target.tenant.container,
                environment: target.tenant.environment,
                owner: target.tenant.owner,
                zoneName: target.zoneName,
                recordName: recordName,
                fieldName: request.fieldName,
                expiresAt: expires
            )
            answers.append(AssetUploadToken(recordName: recordName, fieldName: request.fieldName, token: tokens.uploadToken(grant)))
        }
        return answers
    }
}

extension DatabaseService {
    /// The assets records of one zone hold, each with a receipt any record of the zone may
    /// redeem within 12 hours, so another record takes the same asset without an upload
    /// (CKWS `assets/rereference`). An asset list gives one asset per element.
    /// - Returns: per item, in order: the assets, or `.unknownItem` for a record the caller
    ///   cannot read (or that does not exist) and for a field that holds no stored asset.
    public func rereferenceAssets(
        _ items: [(recordName: String, fieldName: String)],
        inZone zoneID: ZoneID?,
        access: DatabaseAccess
    ) async throws(NimbusError) -> [Result<[Asset], NimbusError>] {
        let target = try await target(zone: zoneID, access: access)
        let found = try await lookupRecords(named: items.map(\.recordName), inZone: zoneID, access: access)
        let tokens = AssetTokens(sealer: sealer)
        let expires = clock.millisecondsSince1970 + AssetTokens.receiptLifetime
        return zip(items, found).map { item, result in
            guard case .success(let record) = result else { return .failure(NimbusError.recordNotFound) }
            let held: [Asset] =
                switch record.fields[NameKey(item.fieldName)] {
                case .asset(let asset)?: [asset]
                case .list(.asset, let elements)?: elements.compactMap { if case .asset(let asset) = $0 { asset } else { nil } }
                default: []
                }
            let stored = held.compactMap { asset in asset.assetID.map { (asset: asset, id: $0) } }
            guard !stored.isEmpty else { return .failure(NimbusError(.unknownItem, "field '\(item.fieldName)' holds no asset")) }
            return .success(
                stored.map { asset, id in
                    let receipt = AssetReceipt(assetID: id, checksum: asset.fileChecksum ?? "", size: asset.size ?? 0, expiresAt: expires)
                    return Asset(
                        fileChecksum: asset.fileChecksum,
                        size: asset.size,
                        receipt: tokens.zoneReceipt(receipt, tenant: target.tenant, zone: target.zoneName)
                    )
                }
            )
        }
    }
}

/// What the record planner needs to turn the asset values a client sends into stored ones.
struct AssetRedemption: Sendable {
    let tokens: AssetTokens
    let tenant: Tenant
    let zoneName: String
    let now: Int64

    /// The stored form of an asset value a client saves in `field` of `record`:
    /// - with a receipt, the asset it names, if the receipt was made for this field of this
    ///   record and has not expired;
    /// - without one, the asset the field holds already with the same checksum (a client saving
    ///   back a record it read).
    /// - Throws: `.badRequest` otherwise.
    func stored(_ value: FieldValue, field: String, record: String, previous: FieldValue?) throws(NimbusError) -> FieldValue {
        switch value {
        case .asset(let asset):
            return .asset(try stored(asset, field: field, record: record, previous: previous))
        case .list(.asset, let elements):
            var stored: [FieldValue] = []
            for case .asset(let asset) in elements {
                stored.append(.asset(try self.stored(asset, field: field, record: record, previous: previous)))
            }
            return .list(elementType: .asset, stored)
        default:
            return value
        }
    }

    private func stored(_ asset: Asset, field: String, record: String, previous: FieldValue?) throws(NimbusError) -> Asset {
        if let receipt = asset.receipt {
            guard let redeemed = tokens.openReceipt(receipt, tenant: tenant, zone: zoneName, record: record, field: field, now: now) else {
                throw .badRequest(
                    "field '\(field)': the asset's receipt is not valid for this record and field (or has expired): upload the asset again"
                )
            }
            if let checksum = asset.fileChecksum, checksum != redeemed.checksum {
                throw .badRequest("field '\(field)': fileChecksum does not match the uploaded asset")
            }
            var stored = Asset(fileChecksum: redeemed.checksum, size: redeemed.size)
            stored.assetID = redeemed.assetID
            return stored
        }
        let held: [Asset] =
            switch previous {
            case .asset(let held)?: [held]
            case .list(.asset, let elements)?: elements.compactMap { if case .asset(let held) = $0 { held } else { nil } }
            default: []
            }
        if let checksum = asset.fileChecksum, let same = held.first(where: { $0.fileChecksum == checksum }) { return same }
        throw .badRequest("field '\(field)': an asset needs the receipt of its upload (assets/upload)")
    }
}
