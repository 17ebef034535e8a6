//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// What removing a user's data from one environment did.
public struct AccountDataRemoval: Sendable, Hashable {
    /// Custom zones deleted (their shares ended for every participant).
    public var zonesDeleted = 0
    /// Others' shares the user left.
    public var sharesLeft = 0

    /// Creates an empty report.
    public init() {}
}

extension DatabaseService {
    /// Removes what a user shares with others in one environment, as they would themselves: they
    /// leave every share they accepted (its owner's records stay the owner's), and delete every
    /// custom zone of their private database, so the shares in them end and their participants
    /// are told, as when an owner deletes a zone. The rest (the default zone, subscriptions,
    /// the account) goes with ``AccountStore/deleteUser(_:inContainer:)``.
    public func removeSharedData(of user: String, container: String, environment: Environment) async throws(NimbusError) -> AccountDataRemoval {
        let caller = Caller(container: container, environment: environment, kind: .user, userRecordName: user)
        var report = AccountDataRemoval()
        let accepted = try await store {
            try await shares.acceptedShares(of: user, in: ContainerEnvironment(container: container, environment: environment))
        }
        for participation in accepted {
            let results = try await modifyRecords(
                [RecordOperation(kind: .forceDelete, recordName: participation.shareName)],
                inZone: ZoneID(zoneName: participation.zoneName, ownerRecordName: participation.owner),
                atomic: true,
                access: DatabaseAccess(caller: caller, scope: .shared)
            )
            if case .deleted = results.first { report.sharesLeft += 1 }
        }
        let privateAccess = DatabaseAccess(caller: caller, scope: .private)
        let custom = try await zones(access: privateAccess).map(\.zoneID).filter { !$0.isDefaultZone }
        for batch in stride(from: 0, to: custom.count, by: Self.maximumOperations) {
            let operations = custom[batch..<min(batch + Self.maximumOperations, custom.count)].map { ZoneOperation.delete($0) }
            for result in try await modifyZones(Array(operations), access: privateAccess) {
                if case .deleted = result { report.zonesDeleted += 1 }
            }
        }
        return report
    }
}
