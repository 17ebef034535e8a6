//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusClient
import NimbusModel

/// `nimbus changes fetch`: a zone's change feed, through the SDK and any server.
struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Follow change feeds (a client of any Nimbus server).",
        subcommands: [Fetch.self]
    )

    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a zone's changes since a token, and the token to pass next time."
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "The zone (default: the default zone).") var zone = ZoneID.defaultZoneName
        @Option(help: "The token of the previous fetch; omit to fetch everything.") var token: String?

        func run() async throws {
            let zoneID = client.zoneID(zone)
            let progress = ProgressLine()
            var count = 0
            let next = try await client.database().fetchZoneChanges(in: zoneID, since: token) { page in
                for record in page.changed { RecordOutput.print(record, json: client.json) }
                for deleted in page.deleted {
                    if client.json {
                        Output.printJSON(["recordName": deleted.recordID.recordName, "recordType": deleted.recordType, "deleted": true])
                    } else {
                        print("deleted \(deleted.recordID.recordName)  \(deleted.recordType)")
                    }
                }
                count += page.changed.count + page.deleted.count
                if page.moreComing { progress.show("\(count) changes fetched…") }
            }
            progress.clear()
            if client.json { Output.printJSON(["syncToken": next, "changes": count]) } else { print("syncToken: \(next)") }
        }
    }
}

/// A one-line progress display on standard error, shown only when it is a terminal.
struct ProgressLine {
    private let isTerminal = isatty(FileHandle.standardError.fileDescriptor) == 1

    func show(_ text: String) {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
    }

    func clear() {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
