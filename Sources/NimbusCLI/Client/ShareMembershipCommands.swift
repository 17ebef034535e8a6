//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import NimbusClient
import NimbusModel

/// `nimbus share invite --zone Z [--share NAME] --invite WHO[:read-write]...`
struct ShareInvite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite",
        abstract: "Invite more people to a share you own.",
        discussion: "--invite takes what `share create` takes: email, +phone or _userRecordName, optionally :read-write."
    )
    @OptionGroup var client: ClientOptions
    @Option(help: "The shared zone.") var zone: String
    @Option(help: "The share record's name (default: the zone share; a record share is share-RECORD).") var share = Share.zoneShareName
    @Option(help: "Someone to invite: email, +phone or _userRecordName, optionally :read-write (repeatable).") var invite: [String]

    func validate() throws {
        guard !invite.isEmpty else { throw ValidationError("share invite needs at least one --invite") }
    }

    func run() async throws {
        let database = try client.database()
        let invitations = try invite.map(ShareCreate.invitation)
        let current = try await database.fetchShare(named: share, in: client.zoneID(zone))
        let saved = try await database.save(current, inviting: invitations)
        ShareMembershipOutput.print(saved, json: client.json)
    }
}

/// `nimbus share remove --zone Z [--share NAME] WHO...`
struct ShareRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove participants from a share you own; they lose access at once."
    )
    @OptionGroup var client: ClientOptions
    @Option(help: "The shared zone.") var zone: String
    @Option(help: "The share record's name (default: the zone share).") var share = Share.zoneShareName
    @Argument(help: "Who to remove: an email address, a phone number or a user record name, as invited.") var participants: [String]
    @OptionGroup var confirmation: Confirmation

    func run() async throws {
        try confirmation.confirm("remove \(participants.joined(separator: ", ")) from the share of zone \(zone)")
        let database = try client.database()
        var current = try await database.fetchShare(named: share, in: client.zoneID(zone))
        for who in participants {
            let matches = current.participants.filter { Self.participant($0, is: who) }
            guard !matches.isEmpty else { throw CommandFailure(description: "\(who) is not a participant of \(share)") }
            guard !matches.contains(where: { $0.role == .owner }) else { throw CommandFailure(description: "the owner cannot be removed") }
            current.participants.removeAll { Self.participant($0, is: who) }
        }
        ShareMembershipOutput.print(try await database.save(current), json: client.json)
    }

    static func participant(_ participant: ShareParticipant, is who: String) -> Bool {
        if participant.userRecordName == who { return true }
        switch participant.lookupInfo {
        case .emailAddress(let address)?: return address.lowercased() == who.lowercased()
        case .phoneNumber(let number)?: return number == who
        case .userRecordName(let name)?: return name == who
        case nil: return false
        }
    }
}

/// How the membership commands print a saved share: its participants' table.
enum ShareMembershipOutput {
    static func print(_ share: ShareInfo, json: Bool) {
        if json {
            Output.printJSON(["share": share.recordName, "participants": ShareParticipantTable.rows(share.participants)])
        } else {
            for line in ShareParticipantTable.lines(share.participants) { Swift.print(line) }
        }
    }
}
