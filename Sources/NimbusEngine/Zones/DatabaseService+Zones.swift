//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// A `zones/modify` operation.
public enum ZoneOperation: Sendable, Hashable {
    case create(ZoneID)
    case delete(ZoneID)
}

/// The outcome of one `zones/modify` operation.
public enum ZoneResult: Sendable, Hashable {
    case saved(Zone)
    case deleted(ZoneID)
    case failed(ZoneID, NimbusError)
}

extension DatabaseService {
    /// Returns the zones of the database, the default zone first.
    public func zones(access: DatabaseAccess) async throws(NimbusError) -> [Zone] {
        let tenant = try tenant(for: access)
        if access.scope == .shared { return try await sharedZones(of: tenant) }
        return try await store { try await records.zones(of: tenant) }.map { reported($0, of: tenant) }
    }

    /// The shared database's zones: each owner's zone in which the caller accepted a share,
    /// named `(zoneName, ownerRecordName)`.
    private func sharedZones(of caller: Tenant) async throws(NimbusError) -> [Zone] {
        let container = ContainerEnvironment(container: caller.container, environment: caller.environment)
        let accepted = try await store { try await shares.acceptedShares(of: caller.owner, in: container) }
        var seen: Set<ZoneID> = []
        var zones: [Zone] = []
        for participation in accepted {
            let zoneID = ZoneID(zoneName: participation.zoneName, ownerRecordName: participation.owner)
            guard seen.insert(zoneID).inserted else { continue }
            let owner = Tenant(container: caller.container, environment: caller.environment, owner: participation.owner)
            if let zone = try await store({ try await records.zone(named: participation.zoneName, of: owner) }) {
                zones.append(zone)
            }
        }
        return zones
    }

    /// Returns zones by ID, in request order; missing ones (and other owners') as `.zoneNotFound`.
    public func lookupZones(_ zoneIDs: [ZoneID], access: DatabaseAccess) async throws(NimbusError) -> [Result<Zone, NimbusError>] {
        guard zoneIDs.count <= Self.maximumOperations else {
            throw .limitExceeded("a request may look up at most \(Self.maximumOperations) zones")
        }
        _ = try tenant(for: access)
        var results: [Result<Zone, NimbusError>] = []
        for zoneID in zoneIDs {
            do throws(NimbusError) {
                let target = try await target(zone: zoneID, access: access)
                guard let zone = try await store({ try await records.zone(named: target.zoneName, of: target.tenant) }) else {
                    throw NimbusError.zoneNotFound
                }
                results.append(.success(reported(zone, of: target.tenant)))
            } catch {
                results.append(.failure(error))
            }
        }
        return results
    }

    /// Creates and deletes zones, in order; each operation succeeds or fails on its own.
    ///
    /// Custom zones of the public database (beyond CloudKit, which has none) can only be created
    /// and deleted with a server-to-server key: they belong to the app, not to a user.
    public func modifyZones(_ operations: [ZoneOperation], access: DatabaseAccess) async throws(NimbusError) -> [ZoneResult] {
        guard operations.count <= Self.maximumOperations else {
            throw .limitExceeded("a request may have at most \(Self.maximumOperations) operations, this one has \(operations.count)")
        }
        let tenant = try tenant(for: access)
        _ = try writer(access)
        if access.scope == .shared { throw .permissionFailure("zones of the shared database belong to their owners") }
        if tenant.isPublic && access.caller.kind != .serverKey {
            throw .permissionFailure("only server-to-server keys may create or delete zones of the public database")
        }
        let named = operations.map { operation -> String in
            switch operation {
            case .create(let zoneID), .delete(let zoneID): zoneID.zoneName
            }
        }
        guard Set(named.map { NameKey($0) }).count == named.count else { throw .badRequest("a request may have only one operation per zone") }
        var results: [ZoneResult] = []
        for operation in operations {
            let zoneID: ZoneID
            switch operation {
            case .create(let id), .delete(let id): zoneID = id
            }
            do throws(NimbusError) {
                let name = try zoneName(of: zoneID, in: tenant, access: access)
                switch operation {
                case .create:
                    if name == ZoneID.defaultZoneName {
                        // The default zone always exists; creating it again is a harmless no-op.
                        let zone = try await store { try await records.zone(named: name, of: tenant) }
                        results.append(.saved(reported(zone ?? Zone(zoneID: zoneID, changeCounter: 0), of: tenant)))
                        continue
                    }
                    if let violation = ZoneNameRule.violation(in: name) { throw .badRequest(violation) }
                    do {
                        let zone = try await store { try await records.createZone(named: name, of: tenant) }
                        results.append(.saved(reported(zone, of: tenant)))
                    } catch  where error.code == .alreadyExists {
                        throw NimbusError(.alreadyExists, "zone '\(name)' already exists")
                    }
                case .delete:
                    if name == ZoneID.defaultZoneName { throw .badRequest("the default zone cannot be deleted") }
                    let notice = Self.deletionNotice(by: tenant.owner)
                    guard try await store({ try await records.deleteZone(named: name, of: tenant, notice: notice) }) else {
                        throw NimbusError.zoneNotFound
                    }
                    results.append(.deleted(reportedZoneID(name, of: tenant)))
                }
            } catch {
                results.append(.failed(zoneID, error))
            }
        }
        return results
    }

    /// Who hears of a zone's deletion: the owner's subscriptions, as for any change of the zone,
    /// and every participant who had accepted one of its shares, whose shared database loses it.
    static func deletionNotice(by owner: String) -> @Sendable ([Share]) -> ChangeNote {
        { shares in
            let participants = shares.flatMap(\.participants).filter { $0.acceptance == .accepted && $0.role != .owner }
            return ChangeNote(
                writer: owner,
                deviceID: nil,
                created: [],
                deleted: [],
                zoneDeleted: true,
                formerParticipants: Set(participants.compactMap(\.userRecordName)).sorted()
            )
        }
    }

    private func reported(_ zone: Zone, of tenant: Tenant) -> Zone {
        var reported = zone
        reported.zoneID = reportedZoneID(zone.zoneID.zoneName, of: tenant)
        return reported
    }
}
