//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import NimbusClient
import NimbusModel

/// `nimbus share create --zone Z [--record R] [--invite WHO[:read-write]]...`
struct ShareCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Share a zone, or a record and its children, and invite participants.",
        discussion: """
            --invite takes an email address, a phone number (+...) or a user record name (_...),
            with :read-write to let them write (read-only by default). Prints the share's URL, which
            `nimbus share accept` takes.
            """
    )
    @OptionGroup var client: ClientOptions
    @Option(help: "The zone to share (all of it, unless --record names a root).") var zone: String
    @Option(help: "Share this record and the records below it instead of the whole zone.") var record: String?
    @Option(help: "The title invitations show.") var title: String?
    @Option(help: "Someone to invite: email, +phone or _userRecordName, optionally :read-write (repeatable).") var invite: [String] = []
    @Option(help: "What anyone with the URL may do: none, read-only or read-write.") var `public` = "none"

    func run() async throws {
        let zoneID = client.zoneID(zone)
        let database = try client.database()
        let invitations = try invite.map(Self.invitation)
        guard let publicPermission = Self.permission(`public`) else {
            throw CommandFailure(description: "--public must be none, read-only or read-write")
        }
        let share: ShareInfo
        if let record {
            let root = try await database.record(named: record, in: zoneID)
            share = try await database.shareRecord(root, title: title, publicPermission: publicPermission, inviting: invitations)
        } else {
            share = try await database.shareZone(zoneID, title: title, publicPermission: publicPermission, inviting: invitations)
        }
        let url = "\(database.container.serverURL)/share/\(share.shortGUID)"
        if client.json {
            Output.printJSON(["share": share.recordName, "shortGUID": share.shortGUID, "url": url, "participants": share.participants.count])
        } else {
            print("shared \(record ?? "zone \(zone)") as \(share.recordName): \(url)")
        }
    }

    static func invitation(_ text: String) throws -> ShareInvitation {
        var who = text
        var permission = SharePermission.readOnly
        if let colon = text.lastIndex(of: ":"), let parsed = Self.permission(String(text[text.index(after: colon)...])) {
            who = String(text[..<colon])
            permission = parsed
        }
        guard !who.isEmpty else { throw CommandFailure(description: "--invite needs an email address, a phone number or a user record name") }
        let lookup: LookupInfo =
            if who.contains("@") { .emailAddress(who) } else if who.hasPrefix("+") { .phoneNumber(who) } else { .userRecordName(who) }
        return ShareInvitation(lookup, permission: permission)
    }

    static func permission(_ text: String) -> SharePermission? {
        switch text.lowercased() {
        case "none": SharePermission.none
        case "read-only", "readonly", "read_only": .readOnly
        case "read-write", "readwrite", "read_write": .readWrite
        default: nil
        }
    }
}

/// `nimbus share accept SHORTGUID`
struct ShareAccept: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a share by its short GUID; its zone then shows in the shared database."
    )
    @OptionGroup var client: ClientOptions
    @Argument(help: "The share's URL, or its short GUID (the URL's last part; one that starts with - must follow --).")
    var share: String

    func run() async throws {
        let container = try client.database().container
        // A short GUID may start with "-", which reads as an option: the URL form never does.
        let shortGUID = share.split(separator: "/").last.map(String.init) ?? share
        let (accepted, zone) = try await container.acceptShare(shortGUID: shortGUID)
        let share = accepted
        if client.json {
            Output.printJSON(["share": share.recordName, "zoneName": zone.zoneName, "ownerRecordName": zone.ownerRecordName])
        } else {
            print("accepted \(share.recordName): zone \(zone.zoneName) of \(zone.ownerRecordName), in the shared database")
        }
    }
}

/// `nimbus share leave --zone Z --owner OWNER [--share NAME]` (`--owner` is a client option).
struct ShareLeave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave",
        abstract: "Leave a share you accepted (through the shared database)."
    )
    @OptionGroup var client: ClientOptions
    @Option(help: "The shared zone's name.") var zone: String
    @Option(help: "The share record's name (default: the zone share).") var share = Share.zoneShareName

    func run() async throws {
        guard client.owner != nil else { throw CommandFailure(description: "share leave needs --owner: the shared zone's owner") }
        let zoneID = client.zoneID(zone)
        let shared = try client.database().container.sharedCloudDatabase
        try await shared.leaveShare(named: share, in: zoneID)
        if client.json { Output.printJSON(["share": share, "left": true]) } else { print("left \(share) in \(zone)") }
    }
}
