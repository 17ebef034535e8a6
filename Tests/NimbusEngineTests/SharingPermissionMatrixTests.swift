//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusStore
import Testing

/// Every role × every operation × record share and zone share (spec `sharing.md` §6): allowed,
/// or the exact error, and a refused write changes nothing.
@Suite("sharing permission matrix")
struct SharingPermissionMatrixTests {
    enum ShareKind: String, CaseIterable, Sendable {
        case record, zone
    }

    enum Role: String, CaseIterable {
        case readOnly, readWrite, administrator, publicReadWrite, outsider
    }

    enum Operation: String, CaseIterable {
        case read, readOutside, query, createChild, createWithoutParent, modify, delete, deleteRoot, changeShare, addParticipant
    }

    /// `nil`: allowed; otherwise the error code.
    static func expected(_ operation: Operation, _ role: Role, _ kind: ShareKind) -> NimbusError.Code? {
        if role == .outsider { return .zoneNotFound }
        let writes = role != .readOnly
        switch operation {
        case .read, .query: return nil
        case .readOutside: return kind == .zone ? nil : .unknownItem
        case .createChild, .modify, .delete: return writes ? nil : .permissionFailure
        case .createWithoutParent: return kind == .zone && writes ? nil : .permissionFailure
        // Deleting the root ends a record share for everyone: only administrators may. The probe
        // sends a stale change tag, so an allowed delete answers CONFLICT and ends nothing.
        case .deleteRoot:
            let allowed = kind == .zone ? writes : role == .administrator
            return allowed ? .serverRecordChanged : .permissionFailure
        case .changeShare: return role == .administrator ? nil : .permissionFailure
        case .addParticipant:
            guard role == .administrator else { return .permissionFailure }
            // The public user's row runs on a public share, which takes no new participants.
            return nil
        }
    }

    @Test("each role may do exactly what spec §6 allows", arguments: ShareKind.allCases)
    func matrix(kind: ShareKind) async throws {
        try await EngineFixture.with { f in
            let zone = ZoneID(zoneName: "Chats", ownerRecordName: f.alice)
            try await f.makeZone("Chats", for: f.alice)
            var users: [Role: String] = [:]
            for role in Role.allCases {
                users[role] = try await f.accounts.addUser(name: role.rawValue, email: nil, phone: nil, container: EngineFixture.container).user
                    .userRecordName
            }
            var seed = [
                RecordOperation(kind: .create, recordName: "c1", recordType: "Chat"),
                RecordOperation(kind: .create, recordName: "m1", recordType: "Message", parent: .set("c1")),
                RecordOperation(kind: .create, recordName: "loose", recordType: "Message"),
            ]
            for role in Role.allCases {
                seed.append(RecordOperation(kind: .create, recordName: "victim-\(role.rawValue)", recordType: "Message", parent: .set("c1")))
            }
            _ = try await f.modify(seed, zone: "Chats")
            let shareName = kind == .zone ? Share.zoneShareName : "s1"
            let invite: [(Role, ShareRole, SharePermission)] = [
                (.readOnly, .privateUser, .readOnly), (.readWrite, .privateUser, .readWrite), (.administrator, .administrator, .readWrite),
            ]
            let created = try await f.modify(
                [
                    RecordOperation(
                        kind: .create,
                        recordName: shareName,
                        recordType: Share.recordType,
                        share: ShareChange(
                            rootRecordName: kind == .zone ? nil : "c1",
                            participants: invite.map { ParticipantInput(lookupInfo: .userRecordName(users[$0.0]!), role: $0.1, permission: $0.2) }
                        )
                    )
                ],
                zone: "Chats"
            )
            let guid = try #require(created.first?.record?.shareDetails?.share.shortGUID, "\(created)")
            for (role, _, _) in invite {
                _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(users[role]!))
            }

            for role in Role.allCases {
                if role == .publicReadWrite {
                    // Public users exist only on public shares: open it, and let them join.
                    _ = try await f.modify(
                        [RecordOperation(kind: .forceUpdate, recordName: shareName, share: ShareChange(publicPermission: .readWrite))],
                        zone: "Chats"
                    )
                    _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(users[role]!))
                }
                let access = f.access(users[role]!, .shared)
                for operation in Operation.allCases {
                    var wanted = Self.expected(operation, role, kind)
                    if operation == .addParticipant, role == .publicReadWrite { wanted = .permissionFailure }
                    let before = try await f.store.zone(
                        named: "Chats",
                        of: Tenant(container: EngineFixture.container, environment: .development, owner: f.alice)
                    )
                    let outcome = await run(operation, as: access, role: role, zone: zone, shareName: shareName, f: f)
                    #expect(outcome == wanted, "\(kind) share, \(role), \(operation): got \(String(describing: outcome))")
                    if wanted != nil {
                        let after = try await f.store.zone(
                            named: "Chats",
                            of: Tenant(container: EngineFixture.container, environment: .development, owner: f.alice)
                        )
                        #expect(after?.changeCounter == before?.changeCounter, "\(kind), \(role), \(operation) was refused but wrote")
                    }
                }
                // A participant's zone is not in their private database.
                await #expect(throws: NimbusError.zoneNotFound) {
                    _ = try await f.database.lookupRecords(named: ["m1"], inZone: zone, access: f.access(users[role]!, .private))
                }
            }
        }
    }

    /// Runs one operation; returns the error code, or `nil` if it was allowed.
    private func run(_ operation: Operation, as access: DatabaseAccess, role: Role, zone: ZoneID, shareName: String, f: EngineFixture) async
        -> NimbusError.Code?
    {
        func modify(_ op: RecordOperation) async throws(NimbusError) -> NimbusError.Code? {
            try await f.database.modifyRecords([op], inZone: zone, atomic: true, access: access).first?.error?.code
        }
        func lookup(_ name: String) async throws(NimbusError) -> NimbusError.Code? {
            let result = try await f.database.lookupRecords(named: [name], inZone: zone, access: access).first
            if case .failure(let error) = result { return error.code }
            return nil
        }
        do throws(NimbusError) {
            switch operation {
            case .read: return try await lookup("m1")
            case .readOutside: return try await lookup("loose")
            case .query:
                let page = try await f.database.queryRecords(
                    Query(recordType: "Message"),
                    inZone: zone,
                    resultsLimit: nil,
                    continuationMarker: nil,
                    access: access
                )
                return page.records.contains { $0.recordID.recordName == "m1" } ? nil : .unknownItem
            case .createChild:
                return try await modify(RecordOperation(kind: .create, recordName: "child-\(role)", recordType: "Message", parent: .set("m1")))
            case .createWithoutParent:
                return try await modify(RecordOperation(kind: .create, recordName: "root-\(role)", recordType: "Chat"))
            case .modify:
                return try await modify(
                    RecordOperation(kind: .forceUpdate, recordName: "m1", recordType: "Message", fields: ["by": FieldInput(.string("\(role)"))])
                )
            case .delete:
                return try await modify(RecordOperation(kind: .forceDelete, recordName: "victim-\(role.rawValue)"))
            case .deleteRoot:
                return try await modify(RecordOperation(kind: .delete, recordName: "c1", recordChangeTag: "stale"))
            case .changeShare:
                return try await modify(
                    RecordOperation(kind: .forceUpdate, recordName: shareName, fields: ["cloudkit.title": FieldInput(.string("\(role)"))])
                )
            case .addParticipant:
                let current = try await f.database.lookupRecords(named: [shareName], inZone: zone, access: access).first
                guard case .success(let record) = current, let share = record.shareDetails?.share else { return .permissionFailure }
                var inputs = share.participants.map { ParticipantInput(participantID: $0.participantID, lookupInfo: nil) }
                inputs.append(ParticipantInput(lookupInfo: .emailAddress("new-\(role)@example.com")))
                return try await modify(RecordOperation(kind: .forceUpdate, recordName: shareName, share: ShareChange(participants: inputs)))
            }
        } catch {
            return error.code
        }
    }
}
