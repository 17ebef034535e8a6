//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusClient
import NimbusModel

/// `nimbus record get|save|delete|query`: records, through the SDK and any server.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Fetch, save, delete and query records (a client of any Nimbus server).",
        subcommands: [Get.self, Save.self, Delete.self, Query.self]
    )

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fetch records by name.")
        @OptionGroup var client: ClientOptions
        @Option(help: "The zone (default: the default zone).") var zone = ZoneID.defaultZoneName
        @Option(help: "Download each record's assets into this directory, as RECORD.FIELD[.N].") var download: String?
        @Argument(help: "Record names.") var names: [String]

        func run() async throws {
            let zoneID = client.zoneID(zone)
            let database = try client.database()
            let results = try await database.records(named: names, in: zoneID)
            var failed = false
            for name in names {
                switch results[NameKey(name)] {
                case .success(let record)?:
                    RecordOutput.print(record, json: client.json)
                    if let download { try await AssetTransfer.download(record, into: download, database: database) }
                case .failure(let error)?:
                    failed = true
                    FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
                case nil:
                    failed = true
                    FileHandle.standardError.write(Data("\(name): the server did not answer for this record\n".utf8))
                }
            }
            if failed { throw ExitCode(1) }
        }
    }

    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a record given as a wire-shape JSON dictionary.",
            discussion: """
                Example: nimbus record save --zone Notes '{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"hi"}}}'
                A record with a recordChangeTag updates only that version; without one, it must not exist yet.
                --force overwrites whatever the server has.
                """
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "The zone (default: the default zone).") var zone = ZoneID.defaultZoneName
        @Flag(help: "Overwrite the server's record whatever its version (forceReplace).") var force = false
        @Option(name: .customLong("asset"), help: "FIELD=PATH: upload the file as the field's asset (repeatable).") var assets: [String] = []
        @Argument(help: "The record as JSON (recordName and recordType required), or - to read it from standard input.") var record: String

        func validate() throws {
            for asset in assets where !asset.contains("=") { throw ValidationError("--asset takes FIELD=PATH, not \(asset)") }
        }

        func run() async throws {
            let bytes: [UInt8] = record == "-" ? Array(FileHandle.standardInput.readDataToEndOfFile()) : Array(record.utf8)
            var parsed = try Record(wireJSON: bytes, in: client.zoneID(zone))
            let database = try client.database()
            for asset in assets {
                let (field, path) = (String(asset.prefix { $0 != "=" }), String(asset.drop { $0 != "=" }.dropFirst()))
                parsed.fields[NameKey(field)] = .asset(try await AssetTransfer.upload(path, field: field, of: parsed, database: database))
            }
            let saved = try await database.save(parsed, savePolicy: force ? .allKeys : .ifServerRecordUnchanged)
            RecordOutput.print(saved, json: client.json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete records by name.")
        @OptionGroup var client: ClientOptions
        @Option(help: "The zone (default: the default zone).") var zone = ZoneID.defaultZoneName
        @Argument(help: "Record names.") var names: [String]
        @OptionGroup var confirmation: Confirmation

        func run() async throws {
            try confirmation.confirm("delete \(names.count == 1 ? "record" : "records") \(names.joined(separator: ", ")) from zone \(zone)")
            let zoneID = client.zoneID(zone)
            let result = try await client.database().modifyRecords(
                deleting: names.map { RecordID(recordName: $0, zoneID: zoneID) },
                atomically: false
            )
            var failed = false
            for name in names {
                switch result.deleteResults[RecordID(recordName: name, zoneID: zoneID)] {
                case .success?:
                    if client.json { Output.printJSON(["recordName": name, "deleted": true]) } else { print("deleted \(name)") }
                case .failure(let error)?:
                    failed = true
                    FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
                case nil:
                    failed = true
                }
            }
            if failed { throw ExitCode(1) }
        }
    }

    struct Query: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Query records of a type, following pages to the end.",
            discussion: """
                Example: nimbus record query --zone Notes --type Note --filter "count GREATER_THAN 3" --sort count:desc
                With --all-zones the query searches every zone of the database (not the shared one).
                A filter is "field COMPARATOR value" with CloudKit's comparator names (EQUALS,
                BEGINS_WITH, ...) or = != < <= > >=; a value that reads as an integer or a number is
                one, anything else is a string, and a value in double quotes is always a string.
                """
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "The zone (default: the default zone).") var zone: String?
        @Option(help: "The record type.") var type: String
        @Option(help: "A filter \"field COMPARATOR value\" (repeatable).") var filter: [String] = []
        @Option(help: "A sort field, with :desc for descending (repeatable).") var sort: [String] = []
        @Option(help: "Stop after this many records.") var limit: Int?
        @Flag(help: "Search every zone of the database (zoneWide); records print with their zone.") var allZones = false

        func validate() throws {
            if allZones, zone != nil { throw ValidationError("--all-zones searches every zone: leave out --zone") }
        }

        func run() async throws {
            let filters = try filter.map(Self.parseFilter)
            let sorts = try sort.map { spec -> NimbusModel.SortDescriptor in
                let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard let field = parts.first, !field.isEmpty, parts.count == 1 || ["asc", "desc"].contains(parts[1].lowercased()) else {
                    throw CommandFailure(description: "a sort is field or field:desc, such as count:desc; got \"\(spec)\"")
                }
                return NimbusModel.SortDescriptor(String(field), ascending: parts.count == 1 || parts[1].lowercased() == "asc")
            }
            let query = NimbusModel.Query(recordType: type, filters: filters, sortDescriptors: sorts)
            let database = try client.database()
            let zoneID = allZones ? nil : client.zoneID(zone ?? ZoneID.defaultZoneName)
            var printed = 0
            var cursor: String?
            repeat {
                let page = try await database.queryPage(query, in: zoneID, continuingFrom: cursor, resultsLimit: limit.map { min($0, 200) })
                for record in page.records {
                    if let limit, printed >= limit { return }
                    RecordOutput.print(record, json: client.json, withZone: allZones)
                    printed += 1
                }
                cursor = page.cursor
            } while cursor != nil
        }

        /// `--filter`'s text as a filter (see ``Filter/init(parsing:)``).
        static func parseFilter(_ text: String) throws -> Filter {
            do {
                return try Filter(parsing: text)
            } catch {
                throw CommandFailure(description: error.description)
            }
        }
    }
}

/// How the record subcommands print records.
enum RecordOutput {
    /// Prints a record: its wire JSON, or its name, type, change tag and fields (the name
    /// preceded by its zone `withZone`, for results from several zones).
    static func print(_ record: Record, json: Bool, withZone: Bool = false) {
        if json {
            Swift.print(String(decoding: record.wireJSON(), as: UTF8.self))
            return
        }
        let name = withZone ? "\(record.recordID.zoneID.zoneName)/\(record.recordID.recordName)" : record.recordID.recordName
        Swift.print("\(name)  \(record.recordType)  tag \(record.recordChangeTag)")
        // Plain and encrypted fields together, by name; encrypted ones marked.
        let rows =
            record.fields.map { (name: $0.key.description, value: $0.value.readableText) }
            + record.encryptedFields.map { (name: $0.key.description + " (encrypted)", value: $0.value.readableText) }
        let width = rows.map(\.name.count).max() ?? 0
        for row in rows.sorted(by: { $0.name < $1.name }) {
            Swift.print("  " + row.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + row.value)
        }
    }
}
