//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import NimbusClient
import NimbusModel

/// `nimbus zone list|create|delete`: zones, through the SDK and any server.
struct ZoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zone",
        abstract: "List, create and delete zones (a client of any Nimbus server).",
        subcommands: [List.self, Create.self, Delete.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the database's zones.")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let zones = try await client.database().allZones()
            for zone in zones {
                if client.json {
                    Output.printJSON(["zoneName": zone.zoneName, "ownerRecordName": zone.ownerRecordName])
                } else {
                    print(zone.ownerRecordName.isEmpty ? zone.zoneName : "\(zone.zoneName)  (owner \(zone.ownerRecordName))")
                }
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create zones (creating one that exists is not an error).")
        @OptionGroup var client: ClientOptions
        @Argument(help: "Zone names.") var names: [String]

        func run() async throws {
            let created = try await client.database().save(zones: names.map { client.zoneID($0) })
            for zone in created {
                if client.json { Output.printJSON(["zoneName": zone.zoneName, "created": true]) } else { print("created \(zone.zoneName)") }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete zones and every record in them.")
        @OptionGroup var client: ClientOptions
        @Argument(help: "Zone names.") var names: [String]
        @OptionGroup var confirmation: Confirmation

        func run() async throws {
            try confirmation.confirm(
                "delete \(names.count == 1 ? "zone" : "zones") \(names.joined(separator: ", ")) and every record in \(names.count == 1 ? "it" : "them")"
            )
            try await client.database().delete(zones: names.map { client.zoneID($0) })
            for name in names {
                if client.json { Output.printJSON(["zoneName": name, "deleted": true]) } else { print("deleted \(name)") }
            }
        }
    }
}
