//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The sharing rules of a `records/modify` batch (spec `sharing.md` §2–§6).
///
/// Share records are saved, changed and deleted like records, and the planner turns those
/// operations into share writes: creating a share marks its root (and, through the store, the
/// root's descendants); deleting it in the private database unshares, deleting it through the
/// shared database leaves. Writes through the shared database must stay inside a share the
/// caller may write; anything the caller may not read answers as if it did not exist.
extension RecordBatchPlanner {
    // MARK: - Ordinary records

    /// Whether an operation addresses a share record.
    func isShareOperation(_ operation: RecordOperation, name: String) -> Bool {
        if name == Share.zoneShareName || operation.share != nil { return true }
        if let type = operation.recordType, Share.isShareType(type) { return true }
        if let current = state[NameKey(name)] ?? nil, Share.isShareType(current.recordType) { return true }
        return false
    }

    /// Whether the caller may read a record: always, except through the shared database.
    func isVisible(_ record: Record) -> Bool {
        guard context.sharing.scope == .shared else { return true }
        return context.sharing.access?.canRead(record) ?? false
    }

    /// Refuses a change to a record the caller may read but not write.
    func checkWritable(_ record: Record, action: String) throws(NimbusError) {
        guard context.sharing.scope == .shared, !(context.sharing.access?.canWrite(record) ?? false) else { return }
        throw .permissionFailure("your permission on this share is READ_ONLY: you cannot \(action) its records")
    }

    /// Deleting a share's root ends the share for everyone, so through the shared database
    /// only an administrator may do it; other participants leave by deleting the share record.
    func checkMayEnd(share shareName: String) throws(NimbusError) {
        guard context.sharing.scope == .shared,
            context.sharing.access?.participation(inShare: shareName)?.role != .administrator
        else { return }
        throw .permissionFailure(
            "deleting a share's root record ends the share for everyone, which only its owner and administrators may do; leave it by deleting the share record"
        )
    }

    /// Before a save: an existing record must be one the caller may see and change. Returns
    /// whether the name is taken by a record the caller cannot see.
    ///
    /// Such a name answers as any taken name does: an `update` as if nothing had the name, and
    /// a save that would create is planned as a create (so every rule a free name meets is met
    /// first, with the same answers) and then refused as `EXISTS`, in the words used for a
    /// record the caller can see. Names are unique in the owner's zone, so that a name is taken
    /// is all a participant can learn (docs/sharing.md).
    func checkSharedWrite(_ operation: RecordOperation, current: Record?) throws(NimbusError) -> Bool {
        guard context.sharing.scope == .shared, let current else { return false }
        guard isVisible(current) else {
            if operation.kind == .update || operation.kind == .replace { throw NimbusError.recordNotFound }
            return true
        }
        try checkWritable(current, action: "change")
        return false
    }

    /// After a save is planned: through the shared database, the record must end up inside a
    /// share the caller may write.
    func checkSharedPlacement(of record: Record, current: Record?) throws(NimbusError) {
        guard context.sharing.scope == .shared, let access = context.sharing.access else { return }
        if access.participation(for: record)?.canWrite == true { return }
        if access.participation(for: record) != nil {
            throw .permissionFailure("your permission on this share is READ_ONLY: you cannot add or move records into it")
        }
        if record.parentRecordName == nil {
            throw .permissionFailure("a record saved through the shared database needs a parent inside the share")
        }
        // Same words whether the parent is missing or outside the share: its existence is not ours to tell.
        throw .permissionFailure("the parent record is not in a share you can write to")
    }

    /// The share whose hierarchy holds a record being saved: its own if it is a root, else its
    /// parent's (the parent as this batch leaves it).
    func containingShare(of record: Record, current: Record?) -> String? {
        if let share = record.shareRecordName { return share }
        if let current, (current.parentRecordName ?? "").isSameName(as: record.parentRecordName ?? "") { return current.containingShare }
        guard let parent = record.parentRecordName else { return nil }
        return (state[NameKey(parent)] ?? nil)?.containingShare
    }

    // MARK: - Share records

    /// Plans a save or delete of a share record.
    mutating func planShare(_ operation: RecordOperation, name: String) throws(NimbusError) {
        guard context.sharing.scope != .public, context.sharing.isCustomZone else {
            throw .badRequest("shares can only be saved in a custom zone of a private database")
        }
        let current = state[NameKey(name)] ?? nil
        if operation.kind.isDelete {
            guard let current else { throw NimbusError.recordNotFound }
            if context.sharing.scope == .shared {
                try leaveShare(named: name)
            } else {
                try unshare(current, operation: operation)
            }
        } else if let current {
            if operation.kind == .create { try refuseSecondShare(current) }
            try updateShare(current, operation: operation)
        } else {
            try createShare(operation, name: name)
        }
    }

    private mutating func createShare(_ operation: RecordOperation, name: String) throws(NimbusError) {
        if context.sharing.scope == .shared {
            throw .permissionFailure("participants cannot create shares; the owner creates them in their private database")
        }
        try Self.checkChangeTag(of: operation, against: nil)
        let change = operation.share ?? ShareChange()
        let kinds = context.sharing.shareKinds
        var share = Share(
            recordName: name,
            rootRecordName: nil,
            shortGUID: context.sharing.makeShortGUID(),
            publicPermission: change.publicPermission ?? .none,
            requestsEnabled: change.requestsEnabled ?? false
        )
        var root: Record?
        if name == Share.zoneShareName {
            if change.rootRecordName != nil { throw .badRequest("a zone share (\(Share.zoneShareName)) has no forRecord") }
            if kinds.hasRecordShares {
                throw .badRequest("the zone has record shares, so it cannot also be shared as a whole")
            }
        } else {
            guard let rootName = change.rootRecordName else {
                throw .badRequest(
                    "a new share needs forRecord (the root record it shares), or the name \(Share.zoneShareName) to share the whole zone"
                )
            }
            if kinds.hasZoneShare {
                throw .badRequest("the zone is shared as a whole (\(Share.zoneShareName)), so its records cannot be shared one by one")
            }
            guard let found = state[NameKey(rootName)] ?? nil else { throw NimbusError(.unknownItem, "root record '\(rootName)' not found") }
            if Share.isShareType(found.recordType) { throw .badRequest("a share record cannot be the root of a share") }
            if let other = found.containingShare {
                throw .badRequest("record '\(rootName)' is already in the hierarchy of share '\(other)'; a record belongs to at most one share")
            }
            share.rootRecordName = rootName
            root = found
        }
        share.participants = [
            ShareParticipant(
                participantID: context.sharing.makeParticipantID(),
                userRecordName: context.sharing.owner,
                lookupInfo: .userRecordName(context.sharing.owner),
                role: .owner,
                acceptance: .accepted,
                permission: .readWrite
            )
        ]
        _ = try applyParticipants(change.participants ?? [], to: &share)
        let stamp = ChangeStamp(timestamp: context.now, userRecordName: context.user)
        var record = Record(
            recordID: RecordID(recordName: name, zoneID: context.zoneID),
            recordType: Share.recordType,
            created: stamp,
            modified: stamp
        )
        try apply(operation.fields, to: &record)
        // A record share's own record is inside its hierarchy, so its participants can read it.
        record.containingShare = share.isZoneShare ? nil : name
        record.shareDetails = ShareDetails.view(of: share, for: context.user)

        state[NameKey(name)] = record
        shares[NameKey(name)] = share
        appendSave(record, previousShare: record.containingShare)
        plan.writes.append(.saveShare(share))
        if var root {
            let rootName = root.recordID.recordName
            let previous = root.containingShare
            root.shareRecordName = name
            root.containingShare = name
            state[NameKey(rootName)] = root
            if let index = savedAt[NameKey(rootName)], case .save(_, let resultIndex) = plan.writes[index] {
                // Saved earlier in this batch: that save carries the share reference, and answers with it.
                plan.writes[index] = .save(root, resultIndex: resultIndex)
                if let resultIndex { plan.results[resultIndex] = .saved(root) }
                plan.writes.append(.moveDescendants(of: rootName, from: previous, to: name))
            } else {
                appendSave(root, previousShare: previous, answers: false)
            }
        }
    }

    /// A `create` of a share that exists changes nothing and answers with the share as it
    /// stands (spec `sharing.md` §2), so a retried or repeated "get or create" never replaces
    /// the participant list members were accepted from.
    private func refuseSecondShare(_ current: Record) throws(NimbusError) {
        let name = current.recordID.recordName
        if context.sharing.scope == .shared {
            throw .permissionFailure("participants cannot create shares; the owner creates them in their private database")
        }
        var server = current
        if let share = shares[NameKey(name)] ?? nil { server.shareDetails = ShareDetails.view(of: share, for: context.user) }
        throw NimbusError(.alreadyExists, "share '\(name)' already exists; update it with its recordChangeTag", serverRecord: server)
    }

    private mutating func updateShare(_ current: Record, operation: RecordOperation) throws(NimbusError) {
        let name = current.recordID.recordName
        // Administrators may do what the owner may, except change the owner's entry, which
        // nobody can (applyParticipants leaves it alone).
        if context.sharing.scope == .shared {
            guard let participation = context.sharing.access?.participation(inShare: name) else { throw NimbusError.recordNotFound }
            guard participation.role == .administrator else {
                throw .permissionFailure("only the owner and administrators may change a share")
            }
        }
        guard var share = shares[NameKey(name)] ?? nil else { throw NimbusError(.internalError, "share '\(name)' has no share row") }
        var server = current
        server.shareDetails = ShareDetails.view(of: share, for: context.user)
        try Self.checkChangeTag(of: operation, against: current, serverRecord: server)
        let change = operation.share ?? ShareChange()
        if let root = change.rootRecordName, root != share.rootRecordName {
            throw .badRequest("a share's root cannot change; delete the share and share '\(root)' instead")
        }
        var removed: [ShareParticipant] = []
        if let permission = change.publicPermission, permission != share.publicPermission {
            for index in share.participants.indices where share.participants[index].role == .publicUser {
                if permission == .none {
                    // Back to private: only the users who joined by URL go (spec §5).
                    guard share.participants[index].acceptance != .removed else { continue }
                    share.participants[index].acceptance = .removed
                    removed.append(share.participants[index])
                } else {
                    share.participants[index].permission = permission
                }
            }
            share.publicPermission = permission
        }
        if let inputs = change.participants {
            removed += try applyParticipants(inputs, to: &share)
        }
        if let enabled = change.requestsEnabled { share.requestsEnabled = enabled }
        var record = current
        record.modified = ChangeStamp(timestamp: context.now, userRecordName: context.user)
        if operation.kind == .replace || operation.kind == .forceReplace {
            record.fields = [:]
            record.encryptedFields = [:]
        }
        try apply(operation.fields, to: &record)
        record.shareDetails = ShareDetails(
            share: ShareDetails.view(of: share, for: context.user).share,
            currentUserParticipant: context.user == context.sharing.owner
                ? share.owner : share.participant(userRecordName: context.user),
            removedParticipants: removed
        )
        state[NameKey(name)] = record
        shares[NameKey(name)] = share
        appendSave(record, previousShare: record.containingShare)
        plan.writes.append(.saveShare(share))
    }

    /// The owner deletes the share: every participant loses access, the root loses its
    /// `share` reference and the hierarchy joins whatever holds the root's parent.
    private mutating func unshare(_ current: Record, operation: RecordOperation) throws(NimbusError) {
        let name = current.recordID.recordName
        try Self.checkChangeTag(of: operation, against: current)
        let share = shares[NameKey(name)] ?? nil
        state[NameKey(name)] = .some(nil)
        shares[NameKey(name)] = .some(nil)
        plan.results.append(.deleted(recordName: name, recordType: Share.recordType))
        plan.writes += [.delete(Tombstone(recordName: name, recordType: Share.recordType)), .deleteShare(name)]
        guard let rootName = share?.rootRecordName, var root = state[NameKey(rootName)] ?? nil else { return }
        root.shareRecordName = nil
        root.containingShare = root.parentRecordName.flatMap { state[NameKey($0)] ?? nil }?.containingShare
        root.modified = ChangeStamp(timestamp: context.now, userRecordName: context.user)
        state[NameKey(rootName)] = root
        appendSave(root, previousShare: name, answers: false)
    }

    /// A participant deletes the share through their shared database: they leave it. The share
    /// record is saved again, so everyone's copy of the participant list goes stale.
    private mutating func leaveShare(named name: String) throws(NimbusError) {
        guard context.sharing.access?.participation(inShare: name) != nil, var share = shares[NameKey(name)] ?? nil,
            let index = share.participants.firstIndex(where: { $0.userRecordName == context.user }),
            var record = state[NameKey(name)] ?? nil
        else { throw NimbusError.recordNotFound }
        share.participants[index].acceptance = .removed
        record.modified = ChangeStamp(timestamp: context.now, userRecordName: context.user)
        record.shareDetails = nil
        state[NameKey(name)] = record
        shares[NameKey(name)] = share
        plan.results.append(.deleted(recordName: name, recordType: Share.recordType))
        appendSave(record, previousShare: record.containingShare, answers: false)
        plan.writes.append(.saveShare(share))
    }

    // MARK: - Participants

    /// Makes a share's participant list the listed one: listed participants are matched by
    /// ID, lookup or user and updated, new ones are invited (`PENDING`), and unlisted ones
    /// (never the owner) are removed. Returns the participants this removed.
    private func applyParticipants(
        _ inputs: [ParticipantInput],
        to share: inout Share
    ) throws(NimbusError) -> [ShareParticipant] {
        var listed: Set<String> = []
        for input in inputs {
            var lookup = input.lookupInfo?.normalized
            if case .userRecordName(let name)? = lookup, ZoneID.isCallerPlaceholder(name) { lookup = .userRecordName(context.user) }
            let user = lookup.flatMap { context.sharing.users[$0] }
            if let index = Self.match(input, lookup: lookup, user: user, in: share.participants) {
                var participant = share.participants[index]
                listed.insert(participant.participantID)
                if participant.role == .owner { continue }
                // Public users join by the URL, never by a list: one removed (the share went
                // private) stays removed even when the owner sends back the list it read. An
                // invitation as USER or ADMINISTRATOR is one, and goes on below.
                if participant.role == .publicUser, participant.acceptance == .removed, input.role == nil || input.role == .publicUser {
                    continue
                }
                if let role = input.role, role != participant.role {
                    guard role == .privateUser || role == .administrator else {
                        throw .badRequest("a participant's role can only become USER or ADMINISTRATOR, not \(role.rawValue)")
                    }
                    participant.role = role
                }
                if let permission = input.permission {
                    guard permission != .none else { throw .badRequest("a participant's permission must be READ_ONLY or READ_WRITE") }
                    participant.permission = permission
                }
                if participant.acceptance == .removed {
                    try Self.checkCanAdd(to: share)
                    participant.acceptance = .pending
                }
                share.participants[index] = participant
            } else {
                try Self.checkCanAdd(to: share)
                guard let lookup else {
                    throw .badRequest("a new participant needs userIdentity.lookupInfo (emailAddress, phoneNumber or userRecordName)")
                }
                if let violation = lookup.syntaxViolation { throw .badRequest(violation) }
                if case .userRecordName(let name) = lookup, user == nil {
                    throw .badRequest("no user '\(name)' in this container")
                }
                let role = input.role ?? .privateUser
                guard role == .privateUser || role == .administrator else {
                    throw .badRequest("an invited participant's role is USER or ADMINISTRATOR, not \(role.rawValue)")
                }
                let permission = input.permission ?? (role == .administrator ? .readWrite : .readOnly)
                guard permission != .none else { throw .badRequest("a participant's permission must be READ_ONLY or READ_WRITE") }
                let participant = ShareParticipant(
                    participantID: context.sharing.makeParticipantID(),
                    userRecordName: user,
                    lookupInfo: lookup,
                    role: role,
                    acceptance: .pending,
                    permission: permission
                )
                listed.insert(participant.participantID)
                share.participants.append(participant)
            }
        }
        var removed: [ShareParticipant] = []
        for index in share.participants.indices {
            let participant = share.participants[index]
            guard !listed.contains(participant.participantID), participant.role != .owner, participant.acceptance != .removed else {
                continue
            }
            share.participants[index].acceptance = .removed
            removed.append(share.participants[index])
        }
        return removed
    }

    /// Adding someone to a public share is refused: anyone with its URL joins it (spec §5).
    private static func checkCanAdd(to share: Share) throws(NimbusError) {
        guard share.publicPermission == .none else {
            throw .badRequest(
                "participants cannot be added to a public share (publicPermission is \(share.publicPermission.rawValue)); anyone with its URL can join it"
            )
        }
    }

    /// The participant an input names: by ID, then by user, then by lookup.
    private static func match(_ input: ParticipantInput, lookup: LookupInfo?, user: String?, in participants: [ShareParticipant]) -> Int? {
        if let id = input.participantID, let index = participants.firstIndex(where: { $0.participantID == id }) { return index }
        if let user, let index = participants.firstIndex(where: { $0.userRecordName == user }) { return index }
        if let lookup, let index = participants.firstIndex(where: { $0.lookupInfo == lookup }) { return index }
        return nil
    }
}
