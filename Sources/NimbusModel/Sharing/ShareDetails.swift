//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A share as one reader may see it, attached to its share record in responses.
///
/// Only the owner and administrators see pending participants; other members see the accepted
/// ones and the owner. Removed participants are never listed, except in ``removedParticipants``
/// of the save that removed them.
public struct ShareDetails: Sendable, Hashable {
    /// The share, with only the participants the reader may see.
    public var share: Share
    /// The reader's own participant entry, if the share names them.
    public var currentUserParticipant: ShareParticipant?
    /// Participants the save that returned this removed (for example the public participants
    /// when `publicPermission` returns to `NONE`); empty elsewhere.
    public var removedParticipants: [ShareParticipant]

    /// Creates the view of a share for one reader.
    public init(share: Share, currentUserParticipant: ShareParticipant?, removedParticipants: [ShareParticipant] = []) {
        self.share = share
        self.currentUserParticipant = currentUserParticipant
        self.removedParticipants = removedParticipants
    }

    /// The view of a share for a reader: owners and administrators see every participant that
    /// is not removed, others only accepted ones.
    public static func view(of share: Share, for reader: String?) -> ShareDetails {
        let current = reader.flatMap { share.participant(userRecordName: $0) }
        let seesPending = current.map { $0.acceptance == .accepted && ($0.role == .owner || $0.role == .administrator) } ?? false
        var visible = share
        visible.participants = share.participants.filter { participant in
            switch participant.acceptance {
            case .accepted: true
            case .pending: seesPending || participant.participantID == current?.participantID
            case .removed: false
            }
        }
        return ShareDetails(share: visible, currentUserParticipant: current)
    }
}
