//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusEngine
import NimbusServer
import NimbusStore

/// `nimbus operator ...`: the people who sign in to the console.
struct OperatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator",
        abstract: "Manage the console's operators.",
        subcommands: [Add.self, Link.self, List.self, Disable.self, Enable.self]
    )

    /// Where set-up links point: `--url`, else `NIMBUS_PUBLIC_URL`, else where `serve` listens by default.
    struct LinkOptions: ParsableArguments {
        @Option(help: "The server's address in links (default NIMBUS_PUBLIC_URL, or http://127.0.0.1:8080).")
        var url: String?

        func setupLink(_ secret: String) -> String {
            let environment = Settings.environment["NIMBUS_PUBLIC_URL"]
            var base = url ?? environment ?? "http://127.0.0.1:8080"
            while base.hasSuffix("/") { base.removeLast() }
            return "\(base)/console/setup/\(secret)"
        }
    }

    /// `nimbus operator add EMAIL [--role admin|read-only]`: prints a one-time set-up link.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an operator and print their one-time link to choose a password (valid 24 hours)."
        )

        @OptionGroup var data: DataOptions
        @OptionGroup var link: LinkOptions
        @Argument(help: "The operator's email address: what they sign in with.") var email: String
        @Option(help: "admin (changes too) or read-only.") var role: String = OperatorRole.admin.rawValue
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            guard let role = OperatorRole(rawValue: role) else { throw ValidationError("--role must be admin or read-only") }
            let (account, secret) = try await Admin.run(data) { instance in
                try await instance.operators.add(email: email, role: role)
            }
            Output.print(json: json, ["email": account.email, "role": account.role.rawValue, "setupLink": link.setupLink(secret)])
        }
    }

    /// `nimbus operator link EMAIL`: a new set-up link, for a forgotten password.
    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new one-time link for an operator to choose a password (the old one works until it is used)."
        )

        @OptionGroup var data: DataOptions
        @OptionGroup var link: LinkOptions
        @Argument(help: "The operator's email address.") var email: String
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            let secret = try await Admin.run(data) { instance in try await instance.operators.setupLink(forEmail: email) }
            Output.print(json: json, ["email": email.lowercased(), "setupLink": link.setupLink(secret)])
        }
    }

    /// `nimbus operator list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the operators, oldest first.")

        @OptionGroup var data: DataOptions
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            let operators = try await Admin.run(data) { instance in try await instance.operators.operators() }
            if json {
                Output.printJSON([
                    "operators": operators.map { account -> [String: Any] in
                        [
                            "email": account.email, "role": account.role.rawValue, "disabled": account.isDisabled,
                            "passwordSet": account.passwordHash != nil, "createdAt": account.createdAt,
                        ]
                    }
                ])
                return
            }
            let width = operators.map(\.email.count).max() ?? 0
            for account in operators {
                var line = account.email.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + account.role.rawValue
                if account.passwordHash == nil { line += "  (set-up link not used yet)" }
                if account.isDisabled { line += "  (disabled)" }
                print(line)
            }
        }
    }

    /// `nimbus operator disable EMAIL`.
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an operator: their console sessions end and they cannot sign in.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The operator's email address.") var email: String

        func run() async throws {
            try await Admin.run(data) { instance in try await instance.operators.setDisabled(true, email: email, by: nil) }
        }
    }

    /// `nimbus operator enable EMAIL`.
    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a disabled operator sign in again.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The operator's email address.") var email: String

        func run() async throws {
            try await Admin.run(data) { instance in try await instance.operators.setDisabled(false, email: email, by: nil) }
        }
    }
}
