//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import NimbusServer

/// `nimbus migrate`: brings the database's schema up to date without serving.
///
/// `serve` migrates on start as well; this lets a deployment migrate once, before rolling out
/// new instances. Several processes migrating at once take turns.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Bring the database schema up to date, then exit.")

    @OptionGroup var data: DataOptions

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() async throws {
        let version = try await Admin.run(data) { instance in try await instance.schemaVersion() }
        Output.print(json: json, ["schemaVersion": "\(version)"])
    }
}
