//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

/// What a share's web page may show to the person who opened it.
public struct SharePreview: Sendable, Hashable {
    /// The share's short GUID.
    public var shortGUID: String
    /// The container the share belongs to (its page links to that container's app).
    public var container: String
    /// The container environment the share belongs to.
    public var environment: Environment
    /// Whether the reader may see what the share is: a participant, or anyone for a public share.
    public var isVisible: Bool
    /// The share's title (`cloudkit.title`), when visible.
    public var title: String?
    /// The owner's name, when visible.
    public var ownerName: String?
    /// The signed-in reader's acceptance, if they are listed.
    public var status: ShareAcceptance?
    /// Whether the signed-in reader may accept now.
    public var mayAccept: Bool
    /// Whether the signed-in reader owns the share (their own link, opened by themselves).
    public var isOwner = false
}

extension DatabaseService {
    /// What the page at a share's URL may show to `reader` (a signed-in user, or `nil`).
    ///
    /// A private share shows nothing of itself to anyone it does not list, signed in or not; a
    /// public share shows its title and owner to anyone with the URL, since anyone signed in
    /// may join it. Returns `nil` when no share has the GUID.
    public func sharePreview(shortGUID: String, reader: String?) async throws(NimbusError) -> SharePreview? {
        guard let located = try await store({ try await shares.share(shortGUID: shortGUID, in: nil) }) else { return nil }
        let tenant = located.tenant
        var preview = SharePreview(
            shortGUID: shortGUID,
            container: tenant.container,
            environment: tenant.environment,
            isVisible: false,
            title: nil,
            ownerName: nil,
            status: nil,
            mayAccept: false
        )
        if let reader {
            let access = DatabaseAccess(
                caller: Caller(container: tenant.container, environment: tenant.environment, kind: .user, userRecordName: reader),
                scope: .shared
            )
            guard case .success(let metadata)? = try await resolveShares([ShareLookup(shortGUID: shortGUID)], access: access).first else {
                return preview
            }
            preview.isVisible = true
            preview.title = metadata.share.shareTitle
            preview.ownerName = metadata.ownerIdentity?.name
            preview.status = metadata.participantStatus
            preview.mayAccept = metadata.participantStatus != .accepted && metadata.participantRole != .owner
            preview.isOwner = metadata.participantRole == .owner
            return preview
        }
        guard located.share.publicPermission != .none else { return preview }
        let found = try await store {
            try await records.records(named: [located.share.recordName], inZone: located.zoneName, of: tenant)
        }
        let owner = try await store { try await users.user(named: tenant.owner, inContainer: tenant.container) }
        preview.isVisible = true
        preview.title = found[NameKey(located.share.recordName)]?.shareTitle
        preview.ownerName = owner?.name
        return preview
    }

    /// The container environment of the share with this short GUID, or `nil` if there is none:
    /// where a browser's web auth token must be checked before asking for a preview.
    public func shareLocation(shortGUID: String) async throws(NimbusError) -> ContainerEnvironment? {
        guard let tenant = try await store({ try await shares.share(shortGUID: shortGUID, in: nil) })?.tenant else { return nil }
        return ContainerEnvironment(container: tenant.container, environment: tenant.environment)
    }
}
