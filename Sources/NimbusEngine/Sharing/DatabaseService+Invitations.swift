//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

extension DatabaseService {
    /// Returns what each share is to the caller (`records/resolve`), without changing anything.
    ///
    /// Knowing a share's URL is not enough to see it: a private share answers `ACCESS_DENIED`
    /// to anyone it does not list, and says nothing of its content.
    /// - Throws: `.authenticationRequired` for anonymous callers; `.limitExceeded` over 200.
    public func resolveShares(_ lookups: [ShareLookup], access: DatabaseAccess) async throws(NimbusError)
        -> [Result<ShareMetadata, NimbusError>]
    {
        try await invitations(lookups, access: access, accept: false)
    }

    /// Accepts shares for the caller (`records/accept`): their zones appear in the caller's
    /// shared database.
    ///
    /// A listed participant becomes `ACCEPTED`; anyone signed in may join a public share (as
    /// `PUBLIC_USER` with the share's public permission). Accepting twice changes nothing.
    /// The share record is saved again, so copies of its participant list go stale (as in
    /// CloudKit, the owner's next save with an old change tag is a conflict).
    /// - Throws: `.authenticationRequired` for anonymous callers; `.limitExceeded` over 200.
    public func acceptShares(_ lookups: [ShareLookup], access: DatabaseAccess) async throws(NimbusError)
        -> [Result<ShareMetadata, NimbusError>]
    {
        try await invitations(lookups, access: access, accept: true)
    }

    // MARK: - Private

    private func invitations(_ lookups: [ShareLookup], access: DatabaseAccess, accept: Bool) async throws(NimbusError)
        -> [Result<ShareMetadata, NimbusError>]
    {
        guard lookups.count <= Self.maximumOperations else {
            throw .limitExceeded("a request may name at most \(Self.maximumOperations) shares")
        }
        guard access.caller.kind == .user, let userName = access.caller.userRecordName else {
            throw NimbusError(.authenticationRequired, "opening a share needs a signed-in user")
        }
        let container = ContainerEnvironment(container: access.caller.container, environment: access.caller.environment)
        guard let identity = try await store({ try await users.user(named: userName, inContainer: container.container) }) else {
            throw NimbusError(.authenticationRequired, "opening a share needs a signed-in user")
        }
        let addresses = try await store { try await users.addresses(of: userName, inContainer: container.container) }
        let caller = Invitee(identity: identity, addresses: Set(addresses))
        var results: [Result<ShareMetadata, NimbusError>] = []
        for lookup in lookups {
            do throws(NimbusError) {
                results.append(.success(try await invitation(lookup, caller: caller, container: container, accept: accept)))
            } catch {
                results.append(.failure(error))
            }
        }
        return results
    }

    private func invitation(_ lookup: ShareLookup, caller: Invitee, container: ContainerEnvironment, accept: Bool)
        async throws(NimbusError) -> ShareMetadata
    {
        guard let located = try await store({ try await shares.share(shortGUID: lookup.shortGUID, in: container) }) else {
            throw NimbusError(.unknownItem, "no share has this short GUID")
        }
        let tenant = located.tenant
        let shareName = located.share.recordName
        var share = located.share
        var shareRecord: Record?
        let isMember = Self.entry(in: share, for: caller).map { $0.acceptance == .accepted || $0.role == .owner } ?? false
        // An extra link that no longer admits anyone still shows members their share.
        if let link = located.link, !isMember, let refusal = link.refusal(for: caller.userRecordName, at: clock.millisecondsSince1970) {
            throw .permissionFailure(refusal)
        }
        if accept, !isMember {
            let stamp = ChangeStamp(timestamp: clock.millisecondsSince1970, userRecordName: caller.userRecordName)
            let now = clock.millisecondsSince1970
            (share, shareRecord) = try await store {
                try await records.write(zone: located.zoneName, of: tenant) { transaction in
                    guard var share = try await transaction.shares(named: [shareName])[NameKey(shareName)],
                        var record = try await transaction.records(named: [shareName])[NameKey(shareName)]
                    else { throw NimbusError(.unknownItem, "no share has this short GUID") }
                    if let guid = located.link?.shortGUID {
                        // Read again under the zone's lock: two people racing for a single-use link.
                        guard var link = try await transaction.shareLinks(of: shareName).first(where: { $0.shortGUID == guid }) else {
                            throw NimbusError(.unknownItem, "no share has this short GUID")
                        }
                        if let refusal = link.refusal(for: caller.userRecordName, at: now) { throw NimbusError.permissionFailure(refusal) }
                        Self.join(&share, caller: caller, through: link)
                        if link.isSingleUse {
                            link.usedBy = caller.userRecordName
                            try await transaction.saveShareLink(link)
                        }
                    } else {
                        try Self.join(&share, caller: caller)
                    }
                    try await transaction.saveShare(share)
                    record.modified = stamp
                    let saved = try await transaction.save([record]).first
                    // Subscribers hear of it: the owner's see the share change, and the new
                    // participant's database subscriptions see a zone join their shared database.
                    try await transaction.recordChange(ChangeNote(writer: caller.userRecordName, deviceID: nil, created: [], deleted: []))
                    return (share, saved)
                }
            }
        } else if located.link == nil {
            try Self.checkMayOpen(share, caller: caller)
        }
        let target = ZoneTarget(tenant: tenant, zoneName: located.zoneName)
        let zoneID = reportedZoneID(located.zoneName, of: tenant)
        var names = [shareName]
        if lookup.shouldFetchRootRecord, let root = share.rootRecordName { names.append(root) }
        let found = try await store { try await records.records(named: names, inZone: target.zoneName, of: tenant) }
        guard var record = shareRecord ?? found[NameKey(shareName)] else { throw NimbusError(.unknownItem, "no share has this short GUID") }
        record.recordID.zoneID = zoneID
        record.shareDetails = ShareDetails.view(of: share, for: caller.userRecordName)
        var root = share.rootRecordName.flatMap { found[NameKey($0)] }
        root?.recordID.zoneID = zoneID
        let entry = Self.entry(in: share, for: caller)
        let owner = try await store { try await users.user(named: tenant.owner, inContainer: container.container) }
        return ShareMetadata(
            shortGUID: lookup.shortGUID,
            container: container.container,
            environment: container.environment,
            zoneID: zoneID,
            share: record,
            rootRecordName: share.rootRecordName,
            rootRecord: root.map { $0.keeping(fields: lookup.rootRecordDesiredKeys.map { Set($0.map { NameKey($0) }) }) },
            participantRole: entry?.role,
            participantStatus: entry?.acceptance,
            participantPermission: entry?.permission ?? share.publicPermission,
            ownerIdentity: owner
        )
    }

    /// The caller's entry in a share: theirs by user, or a placeholder for an address they
    /// control (the account's own addresses and the ones they proved).
    static func entry(in share: Share, for caller: Invitee) -> ShareParticipant? {
        if let entry = share.participant(userRecordName: caller.userRecordName) { return entry }
        return share.participants.first { participant in
            guard participant.userRecordName == nil, let address = participant.lookupInfo else { return false }
            return caller.addresses.contains(address)
        }
    }

    /// Refuses a caller who may not open a share: not listed on a private share, or removed.
    ///
    /// A stranger to a private share learns that it exists only while it takes requests to
    /// join (they need to know, to ask); otherwise its short GUID answers as an unknown one.
    static func checkMayOpen(_ share: Share, caller: Invitee) throws(NimbusError) {
        let entry = entry(in: share, for: caller)
        if share.publicPermission != .none { return }
        guard let entry else {
            guard share.requestsEnabled else { throw NimbusError(.unknownItem, "no share has this short GUID") }
            throw .permissionFailure("this share is private and does not list you; ask its owner to let you join")
        }
        if entry.acceptance == .removed {
            throw .permissionFailure("you are no longer a participant of this share; ask its owner for a new invitation")
        }
    }

    /// Makes the caller an accepted participant: a listed one accepts, and on a public share
    /// anyone else joins as a public user.
    static func join(_ share: inout Share, caller: Invitee) throws(NimbusError) {
        try checkMayOpen(share, caller: caller)
        // Back through the public URL after a removal: as a public user, with the public permission.
        admit(caller.userRecordName, entry: entry(in: share, for: caller), to: &share, role: .publicUser, permission: share.publicPermission)
    }

    /// Makes `user` an accepted participant: their entry accepts (taking `role` and `permission`
    /// if it was removed, or always with `overriding`); without an entry they get a new one.
    static func admit(
        _ user: String,
        entry: ShareParticipant?,
        to share: inout Share,
        role: ShareRole,
        permission: SharePermission,
        overriding: Bool = false
    ) {
        guard let entry, let index = share.participants.firstIndex(where: { $0.participantID == entry.participantID }) else {
            share.participants.append(
                ShareParticipant(
                    participantID: ShareIdentifiers.participantID(),
                    userRecordName: user,
                    lookupInfo: .userRecordName(user),
                    role: role,
                    acceptance: .accepted,
                    permission: permission
                )
            )
            return
        }
        if overriding || entry.acceptance == .removed {
            share.participants[index].role = role
            share.participants[index].permission = permission
        }
        share.participants[index].userRecordName = user
        share.participants[index].acceptance = .accepted
    }
}

extension DatabaseService {
    /// Makes the caller an accepted participant through an extra invitation link: an invited
    /// participant accepts their invitation; anyone else (a stranger, or someone removed) joins
    /// as a private user with the link's permission.
    static func join(_ share: inout Share, caller: Invitee, through link: ShareLink) {
        admit(caller.userRecordName, entry: entry(in: share, for: caller), to: &share, role: .privateUser, permission: link.permission)
    }
}

/// A signed-in user opening a share, with the addresses they control (in normal form).
struct Invitee {
    var identity: UserIdentity
    var addresses: Set<LookupInfo>

    var userRecordName: String { identity.userRecordName }
}
