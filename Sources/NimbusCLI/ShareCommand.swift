//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusEngine
import NimbusModel
import NimbusServer
import NimbusStore

/// `nimbus share ...`: what operators need to see of shares.
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Inspect shares (list, on the data directory), and create, accept and leave them (as a client of any server).",
        subcommands: [List.self, ShareCreate.self, ShareInvite.self, ShareRemove.self, ShareAccept.self, ShareLeave.self]
    )

    /// `nimbus share list --container ID --user NAME`: the shares a user owns or is listed in.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the shares a user owns or is listed in, with their participants.")

        @OptionGroup var data: DataOptions
        @Option(help: "The container.") var container: String
        @Option(help: "The user's record name.") var user: String
        @Option(help: "development or production.") var environment: String = "development"
        @Flag(help: "Print JSON, one share per line.") var json = false

        func run() async throws {
            guard let environment = Environment(parsing: environment) else {
                throw CommandFailure(description: "environment must be development or production")
            }
            let shares = try await Admin.run(data) { instance in
                try await instance.database.inspectShares(of: user, container: container, environment: environment)
            }
            if shares.isEmpty, !json { print("No shares.") }
            for located in shares {
                let share = located.share
                let participants = ShareParticipantTable.rows(share.participants)
                if json {
                    Output.printJSON([
                        "owner": located.tenant.owner, "zone": located.zoneName, "share": share.recordName,
                        "root": share.rootRecordName ?? "", "shortGUID": share.shortGUID,
                        "publicPermission": share.publicPermission.rawValue, "participants": participants,
                    ])
                } else {
                    print("\(share.recordName) in \(located.zoneName) of \(located.tenant.owner)")
                    print(
                        "  root: \(share.rootRecordName ?? "(whole zone)")  shortGUID: \(share.shortGUID)  public: \(share.publicPermission.rawValue)"
                    )
                    for line in ShareParticipantTable.lines(share.participants, indent: "  ") { print(line) }
                }
            }
        }
    }
}
