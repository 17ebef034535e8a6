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
        @Option(help: "Changes per request (default: the server's maximum, 200).") var pageSize: Int?
        @Flag(help: "Show the progress bar even when standard error is not a terminal (one line per page).")
        var progress = false

        func run() async throws {
            let zoneID = client.zoneID(zone)
            let bar = ProgressLine(always: progress)
            var count = 0
            var start: Int64?
            let next = try await client.database().fetchZoneChanges(in: zoneID, since: token, resultsLimit: pageSize) { page in
                for record in page.changed { RecordOutput.print(record, json: client.json) }
                for deleted in page.deleted {
                    if client.json {
                        Output.printJSON(["recordName": deleted.recordID.recordName, "recordType": deleted.recordType, "deleted": true])
                    } else {
                        print("deleted \(deleted.recordID.recordName)  \(deleted.recordType)")
                    }
                }
                count += page.changed.count + page.deleted.count
                guard page.moreComing else { return }
                // The server says how far through the zone's changes each page is (not in the
                // shared database, whose zones may hold changes the caller may not know of).
                if let position = page.progress {
                    let first = start ?? position.from
                    start = first
                    bar.show("\(ProgressLine.bar(position.fractionCompleted(since: first)))  \(count) changes")
                } else {
                    bar.show("\(count) changes fetched…")
                }
            }
            bar.clear()
            if client.json { Output.printJSON(["syncToken": next, "changes": count]) } else { print("syncToken: \(next)") }
        }
    }
}

/// A one-line progress display on standard error: redrawn in place on a terminal; elsewhere
/// shown only when asked for, a line each time.
struct ProgressLine {
    private let isTerminal = isatty(FileHandle.standardError.fileDescriptor) == 1
    private let always: Bool

    init(always: Bool = false) {
        self.always = always
    }

    /// A bar of `width` cells for a share from 0 to 1, and the share in percent: `[#####-----]  50%`.
    static func bar(_ fraction: Double, width: Int = 30) -> String {
        let share = min(1, max(0, fraction))
        let filled = Int((share * Double(width)).rounded(.down))
        let percent = Int((share * 100).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(repeating: " ", count: 3 - String(percent).count) + "\(percent)%"
    }

    func show(_ text: String) {
        if isTerminal {
            FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
        } else if always {
            FileHandle.standardError.write(Data("\(text)\n".utf8))
        }
    }

    func clear() {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
