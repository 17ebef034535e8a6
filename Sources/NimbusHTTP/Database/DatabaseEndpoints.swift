//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs one authenticated database operation: decodes its body, calls the engine, encodes the
/// CloudKit-shaped response.
struct DatabaseEndpoints {
    let database: DatabaseService
    let accounts: AccountService
    let assets: AssetService
    let support: SupportAccessService
    let courier: WebCourier
    /// Where the web courier URL points.
    let publicBaseURL: String
    let access: DatabaseAccess
    let body: [UInt8]
    /// Where each item error the response carries is counted, under the operation's name.
    let metrics: HTTPMetrics
    let operationName: String

    func respond(to operation: DatabaseRoute.Operation) async throws(NimbusError) -> [UInt8] {
        switch operation {
        case .zonesList:
            let zones = try await database.zones(access: access)
            return encode(ZonesResponse(zones: zones.map { .zone(wire($0)) }))
        case .zonesLookup:
            let request = try ZonesLookupRequest.parse(body)
            let results = try await database.lookupZones(request.zones, access: access)
            return encode(
                ZonesResponse(
                    zones: zip(request.zones, results).map { item, result in
                        switch result {
                        case .success(let zone): .zone(wire(zone))
                        case .failure(let error): .error(itemError(error, zoneID: item))
                        }
                    }
                )
            )
        case .zonesModify:
            let request = try ZonesModifyRequest.parse(body)
            var operations: [ZoneOperation] = []
            for operation in request.operations {
                switch operation.operationType.lowercased() {
                case "create": operations.append(.create(operation.zoneID))
                case "delete": operations.append(.delete(operation.zoneID))
                default: throw .badRequest("unknown zone operationType '\(operation.operationType)'")
                }
            }
            let results = try await database.modifyZones(operations, access: access)
            return encode(
                ZonesResponse(
                    zones: results.map { result in
                        switch result {
                        case .saved(let zone): .zone(wire(zone))
                        case .deleted(let zoneID): .deleted(zoneID)
                        case .failed(let zoneID, let error): .error(itemError(error, zoneID: zoneID))
                        }
                    }
                )
            )
        case .recordsModify:
            let request = try RecordsModifyRequest.parse(body)
            let results = try await database.modifyRecords(
                request.operations,
                inZone: request.zoneID,
                atomic: request.atomic ?? true,
                access: access
            )
            let desired = NameKey.set(request.desiredKeys)
            return encode(
                RecordsResponse(
                    records: results.map { result in
                        switch result {
                        case .saved(let record): .record(wire(record, desiredKeys: desired))
                        case .deleted(let name, let type): .tombstone(WireTombstone(recordName: name, recordType: type))
                        case .failed(let name, let error): .error(itemError(error, recordName: name))
                        }
                    }
                ),
                numbersAsStrings: request.numbersAsStrings
            )
        case .recordsLookup:
            let request = try RecordsLookupRequest.parse(body)
            let results = try await database.lookupRecords(named: request.records.map(\.recordName), inZone: request.zoneID, access: access)
            return encode(
                RecordsResponse(
                    records: zip(request.records, results).map { item, result in
                        switch result {
                        case .success(let record):
                            .record(wire(record, desiredKeys: NameKey.set(item.desiredKeys ?? request.desiredKeys)))
                        case .failure(let error): .error(itemError(error, recordName: item.recordName))
                        }
                    }
                ),
                numbersAsStrings: request.numbersAsStrings
            )
        case .recordsQuery:
            let request = try RecordsQueryRequest.parse(body)
            let result = try await database.queryRecords(
                request.query,
                inZone: request.zoneID,
                zoneWide: request.zoneWide ?? false,
                resultsLimit: request.resultsLimit,
                continuationMarker: request.continuationMarker,
                access: access
            )
            let desired = NameKey.set(request.desiredKeys)
            return encode(
                RecordsResponse(
                    records: result.records.map { .record(wire($0, desiredKeys: desired)) },
                    continuationMarker: result.continuationMarker
                ),
                numbersAsStrings: request.numbersAsStrings
            )
        case .recordsCount:
            let request = try RecordsQueryRequest.parse(body)
            let count = try await database.countRecords(
                request.query,
                inZone: request.zoneID,
                zoneWide: request.zoneWide ?? false,
                access: access
            )
            return encode(RecordsCountResponse(count: count))
        case .assetsUpload:
            let request = try AssetsUploadRequest.parse(body)
            let tokens = try await database.assetUploadURLs(request.tokens, inZone: request.zoneID, access: access)
            return encode(
                AssetsUploadResponse(
                    tokens: tokens.map {
                        AssetsUploadResponse.Token(
                            recordName: $0.recordName,
                            fieldName: $0.fieldName,
                            url: "\(publicBaseURL)/assets/1/upload/\($0.token)"
                        )
                    }
                )
            )
        case .assetsRereference:
            let request = try AssetsRereferenceRequest.parse(body)
            let results = try await database.rereferenceAssets(
                request.assets.map { (recordName: $0.recordName, fieldName: $0.fieldName) },
                inZone: request.zoneID,
                access: access
            )
            return encode(
                AssetsRereferenceResponse(
                    items: zip(request.assets, results).map { item, result in
                        switch result {
                        case .success(let assets): .assets(recordName: item.recordName, fieldName: item.fieldName, assets)
                        case .failure(let error): .error(itemError(error, recordName: item.recordName))
                        }
                    }
                )
            )
        case .recordsResolve:
            return try await resolveShares(accept: false)
        case .recordsAccept:
            return try await resolveShares(accept: true)
        case .zonesChanges, .databaseChanges:
            return try await databaseChanges()
        case .recordsChanges:
            return try await recordChanges()
        case .zoneChanges:
            return try await zoneChanges()
        case .usersCurrent:
            return encode(WireUser(try await currentUser()))
        case .usersCaller:
            return encode(WireCallerResponse(try await currentUser()))
        case .usersLookupEmail, .usersLookupID:
            return try await lookUpUsers()
        case .usersDiscover:
            return try await discoverUsers()
        case .usersLookupContacts:
            // Deprecated by Apple; answered empty as CloudKit does now.
            return encode(UsersLookupResponse(users: []))
        case .usersContactsVerify:
            return try await startContactVerification()
        case .usersContactsConfirm:
            return try await confirmContactVerification()
        case .usersSupportGrant, .usersSupportList, .usersSupportRevoke:
            return try await supportAccess(operation)
        case .subscriptionsList:
            return try await listSubscriptions()
        case .subscriptionsLookup:
            return try await lookUpSubscriptions()
        case .subscriptionsModify:
            return try await modifySubscriptions()
        case .notificationsExplain:
            return try await explainNotification()
        case .linksCreate, .linksList, .linksRevoke, .linksRotate:
            return try await shareLinks(operation)
        case .requestsCreate, .requestsList, .requestsApprove, .requestsDeny:
            return try await shareRequests(operation)
        case .tokensCreate, .tokensRegister:
            return try await pushToken(register: operation == .tokensRegister)
        }
    }

    // MARK: - Private

    private func currentUser() async throws(NimbusError) -> UserIdentity {
        guard let user = access.caller.userRecordName else {
            throw NimbusError(.authenticationRequired, "request needs authorization")
        }
        return try await accounts.user(user, container: access.caller.container)
    }

    private func wire(_ zone: Zone) -> WireZone {
        WireZone(zoneID: zone.zoneID, syncToken: database.syncToken(for: zone, access: access), atomic: zone.isAtomic)
    }

    func itemError(_ error: NimbusError, recordName: String? = nil, zoneID: ZoneID? = nil) -> WireError {
        metrics.recordItemError(operation: operationName, code: error.code.serverErrorCode)
        // Per-item errors have no request UUID of their own: CloudKit fills in a fresh one.
        var wire = WireError(error, uuid: UUID().uuidString.lowercased())
        wire.recordName = recordName
        wire.zoneID = zoneID
        return wire
    }

    /// A record as a response carries it: its stored assets with download URLs on this server.
    func wire(_ record: Record, desiredKeys: Set<NameKey>?) -> WireRecord {
        WireRecord(record, desiredKeys: desiredKeys) { assetID in publicBaseURL + assets.downloadPath(assetID: assetID) }
    }

    func encode(_ value: some WireResponse, numbersAsStrings: Bool? = nil) -> [UInt8] {
        value.jsonBytes(options: WireOptions(numbersAsStrings: numbersAsStrings ?? false))
    }
}
