//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
public import Logging
public import NimbusModel
public import NimbusStore

/// Uploads, downloads and the lifetime of assets: the bytes behind records' asset fields.
///
/// An upload URL (``DatabaseService/assetUploadURLs(_:inZone:access:)``) names the field it is
/// for; the bytes are encrypted as they arrive (``AssetCipher``) into the blob store, and the
/// answer carries a receipt that a `records/modify` redeems for that field. Reads give each
/// stored asset a signed, short-lived download URL. Assets no record references are collected
/// after ``Configuration/retention``.
public struct AssetService: Sendable {
    /// Limits and lifetimes.
    public struct Configuration: Sendable {
        /// The largest asset, in bytes: 50 MB by default, as CloudKit's.
        public var maximumSize: Int64 = 50_000_000
        /// How long an upload no record references is kept.
        public var retention: Duration = .seconds(24 * 60 * 60)

        /// The defaults.
        public init() {}
    }

    /// Where the encrypted bytes are.
    public let blobs: any AssetBlobStore
    let store: any AssetStore
    let tokens: AssetTokens
    let wrapping: AssetKeyWrapping
    let clock: any NimbusClock
    /// Limits and lifetimes.
    public let configuration: Configuration
    let logger: Logger

    /// Creates the service.
    /// - Parameters:
    ///   - tokenKey: The server's token key (the one ``DatabaseService`` is given as `cursorKey`):
    ///     it authenticates upload URLs, receipts and download URLs.
    ///   - encryptionKey: The server's field-encryption key, from which the key that wraps each
    ///     asset's key is derived.
    public init(
        blobs: any AssetBlobStore,
        store: any AssetStore,
        tokenKey: [UInt8],
        encryptionKey: [UInt8],
        clock: any NimbusClock,
        configuration: Configuration = Configuration(),
        logger: Logger
    ) {
        self.blobs = blobs
        self.store = store
        self.tokens = AssetTokens(sealer: TokenSealer(key: tokenKey))
        self.wrapping = AssetKeyWrapping(serverKey: encryptionKey)
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
    }

    /// What an upload's answer carries: CloudKit's `singleFile` dictionary.
    public struct Uploaded: Sendable, Hashable {
        /// The asset's checksum, base64 (see `AssetIngest`): it names these bytes and is no hash of them.
        public var fileChecksum: String
        /// The number of bytes.
        public var size: Int64
        /// What a `records/modify` of the grant's record and field redeems.
        public var receipt: String
    }

    /// Starts the upload an upload URL's token allows.
    /// - Parameter declaredSize: The size the request says the asset has (its
    ///   `Content-Length`), when it says: an asset that says it is too large, or would not fit
    ///   in its owner's quota, is refused before a byte is read.
    /// - Throws: `.unknownItem` for a token that is forged, expired or foreign, so a URL reveals
    ///   nothing; `.limitExceeded` and `.quotaExceeded` for a declared size too large;
    ///   `.internalError` if the blob store cannot take a file.
    public func beginUpload(token: String, declaredSize: Int64? = nil) async throws(NimbusError) -> (grant: AssetUploadGrant, ingest: AssetIngest) {
        guard let grant = tokens.openUpload(token, now: clock.millisecondsSince1970) else {
            throw NimbusError(.unknownItem, "this upload URL is not valid (it may have expired): ask assets/upload for another")
        }
        let allowance: AssetAllowance
        do {
            allowance = try await store.uploadAllowance(for: grant.tenant)
        } catch {
            throw NimbusError.fromStore(error, logger: logger)
        }
        let limit = allowance.maximumSize ?? configuration.maximumSize
        if let declaredSize, declaredSize > limit { throw Self.tooLarge(limit: limit) }
        if let declaredSize, let room = allowance.room, declaredSize > room { throw Self.overQuota(room: room) }
        do {
            let ingest = try AssetIngest(
                assetID: Self.makeID(),
                directory: blobs.incomingDirectory,
                key: AssetCipher.makeKey(),
                limit: limit,
                room: allowance.room
            )
            return (grant, ingest)
        } catch {
            logger.error("Cannot start an asset upload", metadata: [LogKey.error: "\(error)"])
            throw NimbusError(.internalError, "internal error")
        }
    }

    /// The error of an asset over the size limit.
    public static func tooLarge(limit: Int64) -> NimbusError {
        .limitExceeded("the asset is larger than this container's limit of \(limit) bytes; nothing was kept")
    }

    /// The error of an asset that does not fit in its owner's quota.
    public static func overQuota(room: Int64) -> NimbusError {
        NimbusError(.quotaExceeded, "the asset does not fit in the owner's storage quota (\(room) bytes left); nothing was kept")
    }

    /// Keeps a finished upload: its metadata in the database, then its bytes in the blob
    /// store, and answers with the receipt.
    public func finishUpload(
        _ ingest: AssetIngest,
        grant: AssetUploadGrant,
        contentType: String?,
        fileName: String?
    ) async throws(NimbusError) -> Uploaded {
        let now = clock.millisecondsSince1970
        let asset: StoredAsset
        do {
            let checksum = try ingest.finish()
            asset = StoredAsset(
                id: ingest.assetID,
                tenant: grant.tenant,
                size: ingest.size,
                checksum: checksum,
                wrappedKey: try wrapping.wrap(ingest.key, assetID: ingest.assetID),
                contentType: contentType,
                fileName: fileName,
                createdAt: now
            )
            // The row first: a crash before the bytes are kept leaves a row no receipt ever
            // named, which the collector removes; never bytes nothing knows about.
            try await store.saveAsset(asset)
            try await blobs.keep(ingest.path, as: asset.id)
        } catch {
            ingest.discard()
            throw NimbusError.fromStore(error, logger: logger)
        }
        let receipt = AssetReceipt(assetID: asset.id, checksum: asset.checksum, size: asset.size, expiresAt: now + AssetTokens.receiptLifetime)
        return Uploaded(fileChecksum: asset.checksum, size: asset.size, receipt: tokens.receipt(receipt, for: grant))
    }

    /// The content type the uploader gave a stored asset, if it has one.
    public func contentType(ofAsset id: String) async throws(NimbusError) -> String? {
        do {
            return try await store.asset(id: id)?.contentType
        } catch {
            throw NimbusError.fromStore(error, logger: logger)
        }
    }

    /// The path of a download URL for a stored asset (under the server's address), ending in
    /// CloudKit's `${f}` file-name placeholder.
    public func downloadPath(assetID: String) -> String {
        "/assets/1/download/\(tokens.downloadToken(assetID: assetID, now: clock.millisecondsSince1970))/${f}"
    }

    /// The asset a download URL's token names.
    /// - Throws: `.unknownItem` for a token that is forged or expired, or an asset that is gone:
    ///   one answer for all, so a URL reveals nothing.
    public func openDownload(token: String) async throws(NimbusError) -> AssetDownload {
        let missing = NimbusError(.unknownItem, "asset not found (a download URL expires: read the record again for a new one)")
        guard let claim = tokens.openDownload(token, now: clock.millisecondsSince1970) else { throw missing }
        let found: StoredAsset?
        do {
            found = try await store.asset(id: claim.assetID)
        } catch {
            throw NimbusError.fromStore(error, logger: logger)
        }
        guard let asset = found else { throw missing }
        do {
            return AssetDownload(asset: asset, key: try wrapping.unwrap(asset.wrappedKey, assetID: asset.id), blobs: blobs)
        } catch {
            logger.error("An asset's key does not open", metadata: [LogKey.error: "\(error)"])
            throw NimbusError(.internalError, "internal error")
        }
    }

    /// Removes assets no record references that are older than the retention period: their
    /// rows, then their bytes. Returns how many went.
    public func collect() async throws -> Int {
        let cutoff = clock.millisecondsSince1970 - Int64(configuration.retention.components.seconds) * 1000
        var removed = 0
        while true {
            let batch = try await store.collectUnreferencedAssets(uploadedBefore: cutoff, limit: 100)
            for asset in batch { try await blobs.delete(asset.id) }
            removed += batch.count
            if batch.count < 100 { break }
        }
        if removed > 0 { logger.info("Collected unreferenced assets", metadata: [LogKey.count: "\(removed)"]) }
        sweepIncoming(olderThan: cutoff)
        return removed
    }

    /// Removes uploads in progress older than the retention: what a server that stopped in the
    /// middle of an upload left behind. (Any older upload is long dead: its URL lived 15 minutes.)
    private func sweepIncoming(olderThan cutoff: Int64) {
        let directory = blobs.incomingDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasSuffix(".part") {
            let path = directory + "/" + name
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                Int64(modified.timeIntervalSince1970 * 1000) < cutoff
            else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// A new asset identifier: 128 random bits, hex.
    static func makeID() -> String {
        Hex.string((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    }
}
