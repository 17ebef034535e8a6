//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// `{"results": [...]}` of `records/resolve` and `records/accept` (ckws §3.5).
public struct ShareMetadataResponse: WireResponse {
    /// One element per share: metadata or an error.
    public enum Item: Sendable {
        /// What the share is to the caller.
        case metadata(WireShareMetadata)
        /// Why the share cannot be opened.
        case error(WireError)
    }

    /// The results, in request order.
    public var results: [Item]

    /// Creates the response.
    public init(results: [Item]) {
        self.results = results
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for item in results {
            switch item {
            case .metadata(let metadata): metadata.write(to: &writer, options: options)
            case .error(let error): error.write(to: &writer, options: options)
            }
        }
        writer.endArray()
        writer.endObject()
    }
}

/// One share's metadata, with the keys of a captured CloudKit response.
public struct WireShareMetadata: WireResponse {
    public var shortGUID: String
    public var containerIdentifier: String
    public var environment: String
    public var zoneID: ZoneID
    public var share: Record
    public var rootRecordName: String?
    public var rootRecord: Record?
    public var participantType: String
    public var participantStatus: String
    public var participantPermission: String
    public var ownerIdentity: UserIdentity?

    /// Creates the metadata from its parts (``ShareRole`` etc. already in wire spelling).
    public init(
        shortGUID: String,
        containerIdentifier: String,
        environment: String,
        zoneID: ZoneID,
        share: Record,
        rootRecordName: String?,
        rootRecord: Record?,
        participantRole: ShareRole?,
        participantStatus: ShareAcceptance?,
        participantPermission: SharePermission,
        ownerIdentity: UserIdentity?
    ) {
        self.shortGUID = shortGUID
        self.containerIdentifier = containerIdentifier
        self.environment = environment
        self.zoneID = zoneID
        self.share = share
        self.rootRecordName = rootRecordName
        self.rootRecord = rootRecord
        // Someone who may join a public share but has not is a public user to be.
        participantType = participantRole?.wireName ?? ShareRole.publicUser.wireName
        self.participantStatus = participantStatus?.rawValue ?? "UNKNOWN"
        self.participantPermission = participantPermission.rawValue
        self.ownerIdentity = ownerIdentity
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.field("shortGUID", shortGUID)
        writer.field("containerIdentifier", containerIdentifier)
        writer.field("environment", environment)
        writer.field("databaseScope", "PRIVATE")
        writer.key("zoneID")
        WireZoneID(zoneID).write(to: &writer, options: options)
        writer.key("share")
        WireRecord(share, desiredKeys: nil).write(to: &writer, options: options)
        if let rootRecordName { writer.field("rootRecordName", rootRecordName) }
        if let rootRecord {
            writer.key("rootRecord")
            WireRecord(rootRecord, desiredKeys: nil).write(to: &writer, options: options)
        }
        writer.field("participantType", participantType)
        writer.field("participantStatus", participantStatus)
        writer.field("participantPermission", participantPermission)
        if let ownerIdentity {
            writer.key("ownerIdentity")
            writer.beginObject()
            WireUser(ownerIdentity).writeIdentityName(to: &writer)
            writer.key("lookupInfo")
            writer.beginObject()
            writer.field("userRecordName", ownerIdentity.userRecordName)
            writer.endObject()
            writer.endObject()
        }
        writer.key("potentialMatchList")
        writer.beginArray()
        writer.endArray()
        writer.endObject()
    }
}
