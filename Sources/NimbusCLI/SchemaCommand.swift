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

/// `nimbus schema export|import|deploy`: record types, fields and their index markings.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Export, import and deploy a container's schema.",
        discussion: """
            Development creates record types and fields as records are saved, each with every index
            it can have. Production queries may filter only on queryable fields and sort only by
            sortable ones: `schema deploy` adds what development has and production lacks, after
            printing it. Nothing is ever removed.
            """,
        subcommands: [Export.self, Import.self, Deploy.self]
    )

    /// `nimbus schema export --container ID [--environment E]`
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a container environment's schema as JSON.")
        @OptionGroup var data: DataOptions
        @Option(help: "The container.") var container: String
        @Option(help: "development or production.") var environment = "development"

        func run() async throws {
            let target = try ContainerEnvironment(container: container, environment: SchemaCommand.environment(environment))
            let schema = try await Admin.run(data) { instance in try await instance.schema.schema(of: target) }
            print(RecordSchemaJSON.write(schema))
        }
    }

    /// `nimbus schema import FILE --container ID [--environment E] [--dry-run]`
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a schema file's record types, fields and index markings to a container environment."
        )
        @OptionGroup var data: DataOptions
        @Argument(help: "A schema file, as `schema export` writes it (- for standard input).") var file: String
        @Option(help: "The container.") var container: String
        @Option(help: "development or production.") var environment = "development"
        @Flag(help: "Print what would change, and change nothing.") var dryRun = false

        func run() async throws {
            let target = try ContainerEnvironment(container: container, environment: SchemaCommand.environment(environment))
            let contents = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: file)
            guard let contents else { throw CommandFailure(description: "cannot read \(file)") }
            let schema: RecordSchema
            do {
                schema = try RecordSchemaJSON.read(String(decoding: contents, as: UTF8.self))
            } catch {
                throw CommandFailure(description: error.reason)
            }
            let changes = try await SchemaCommand.applying {
                try await Admin.run(data) { instance in
                    dryRun ? try await instance.schema.changes(adding: schema, to: target) : try await instance.schema.add(schema, to: target)
                }
            }
            SchemaCommand.report(changes, applied: !dryRun, into: "\(container) \(target.environment.rawValue)")
        }
    }

    /// `nimbus schema deploy --container ID [--dry-run]`
    struct Deploy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the development schema's types, fields and index markings to production."
        )
        @OptionGroup var data: DataOptions
        @Option(help: "The container.") var container: String
        @Flag(help: "Print what would change, and change nothing.") var dryRun = false

        func run() async throws {
            let changes = try await SchemaCommand.applying {
                try await Admin.run(data) { instance in try await instance.schema.deploy(container: container, dryRun: dryRun) }
            }
            SchemaCommand.report(changes, applied: !dryRun, into: "\(container) production")
        }
    }

    static func environment(_ text: String) throws -> Environment {
        guard let environment = Environment(parsing: text) else { throw CommandFailure(description: "environment must be development or production") }
        return environment
    }

    /// Runs `body`, turning a conflict into a message that names the field.
    static func applying(_ body: () async throws -> [SchemaChange]) async throws -> [SchemaChange] {
        do {
            return try await body()
        } catch let conflict as SchemaConflict {
            throw CommandFailure(description: "nothing changed: \(conflict)")
        }
    }

    /// Prints the changes, one a line, then what became of them.
    static func report(_ changes: [SchemaChange], applied: Bool, into target: String) {
        for change in changes { print(change.description) }
        if changes.isEmpty {
            print("\(target) already has this schema")
        } else {
            print(applied ? "\(changes.count) changes applied to \(target)" : "\(changes.count) changes to \(target) (dry run: nothing changed)")
        }
    }
}
