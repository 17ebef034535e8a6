//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What an upload URL allows: one asset, for one field of one record of one zone, until it
/// expires (the URL is the credential, as CloudKit's).
public struct AssetUploadGrant: Codable, Sendable, Hashable {
    /// The container of the zone the asset is for.
    public var container: String
    /// The container's environment.
    public var environment: Environment
    /// The zone's owner (the owner's, for the shared database; ``Tenant/publicOwner`` for the
    /// public one): the asset's bytes count against them.
    public var owner: String
    /// The zone.
    public var zoneName: String
    /// The record the asset is for.
    public var recordName: String
    /// The record's field the asset is for.
    public var fieldName: String
    /// When the URL stops working, in milliseconds since 1970.
    public var expiresAt: Int64

    var tenant: Tenant { Tenant(container: container, environment: environment, owner: owner) }
}

/// The receipt of an upload: the asset and where it may be saved.
struct AssetReceipt: Codable, Hashable {
    var assetID: String
    var checksum: String
    var size: Int64
    var expiresAt: Int64
}

/// A download URL's claim: the asset, until when.
struct AssetDownloadClaim: Codable, Hashable {
    var assetID: String
    var expiresAt: Int64
}

/// Makes and opens the tokens of the asset flow, each authenticated with the server's token
/// key and bound to what it is for (the MAC covers the binding, so a token used elsewhere
/// does not open).
///
/// Decisions:
/// - An upload URL lives 15 minutes (as CloudKit's, MistKit notes); a receipt 12 hours, less
///   than the 24-hour retention of unreferenced uploads, so a valid receipt never names a
///   collected asset.
/// - A download URL lives an hour, rounded up to the next ten minutes, so the same record read
///   twice in a while gives the same URL and browsers cache the file.
struct AssetTokens: Sendable {
    static let uploadLifetime: Int64 = 15 * 60 * 1000
    static let receiptLifetime: Int64 = 12 * 60 * 60 * 1000
    static let downloadLifetime: Int64 = 60 * 60 * 1000
    static let downloadRounding: Int64 = 10 * 60 * 1000

    let sealer: TokenSealer

    func uploadToken(_ grant: AssetUploadGrant) -> String {
        sealer.sealForURL(Self.encode(grant), scope: "asset upload")
    }

    func openUpload(_ token: String, now: Int64) -> AssetUploadGrant? {
        guard let payload = sealer.open(token, scope: "asset upload"),
            let grant = try? JSONDecoder().decode(AssetUploadGrant.self, from: payload), grant.expiresAt > now
        else { return nil }
        return grant
    }

    func receipt(_ receipt: AssetReceipt, for grant: AssetUploadGrant) -> String {
        sealer.seal(
            Self.encode(receipt),
            scope: Self.receiptScope(grant.tenant, zone: grant.zoneName, record: grant.recordName, field: grant.fieldName)
        )
    }

    /// A receipt for an asset a record of the zone holds already (`assets/rereference`): any
    /// record and field of that zone may redeem it.
    func zoneReceipt(_ receipt: AssetReceipt, tenant: Tenant, zone: String) -> String {
        sealer.seal(Self.encode(receipt), scope: Self.zoneReceiptScope(tenant, zone: zone))
    }

    /// The receipt's asset, if it was made for this field of this record (or, from
    /// `assets/rereference`, for this zone) and has not expired.
    func openReceipt(_ token: String, tenant: Tenant, zone: String, record: String, field: String, now: Int64) -> AssetReceipt? {
        guard
            let payload = sealer.open(token, scope: Self.receiptScope(tenant, zone: zone, record: record, field: field))
                ?? sealer.open(token, scope: Self.zoneReceiptScope(tenant, zone: zone)),
            let receipt = try? JSONDecoder().decode(AssetReceipt.self, from: payload), receipt.expiresAt > now
        else { return nil }
        return receipt
    }

    private static func zoneReceiptScope(_ tenant: Tenant, zone: String) -> String {
        ["asset rereference", tenant.container, tenant.environment.rawValue, tenant.owner, zone].joined(separator: "\u{1F}")
    }

    func downloadToken(assetID: String, now: Int64) -> String {
        let expires = (now + Self.downloadLifetime + Self.downloadRounding - 1) / Self.downloadRounding * Self.downloadRounding
        return sealer.sealForURL(Self.encode(AssetDownloadClaim(assetID: assetID, expiresAt: expires)), scope: "asset download")
    }

    func openDownload(_ token: String, now: Int64) -> AssetDownloadClaim? {
        guard let payload = sealer.open(token, scope: "asset download"),
            let claim = try? JSONDecoder().decode(AssetDownloadClaim.self, from: payload), claim.expiresAt > now
        else { return nil }
        return claim
    }

    private static func receiptScope(_ tenant: Tenant, zone: String, record: String, field: String) -> String {
        // Unit separators: no name can make two bindings read the same.
        ["asset receipt", tenant.container, tenant.environment.rawValue, tenant.owner, zone, record, field].joined(separator: "\u{1F}")
    }

    private static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(value)) ?? Data()
    }
}
