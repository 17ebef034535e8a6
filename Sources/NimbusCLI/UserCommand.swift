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

/// `nimbus user ...`
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage users.",
        subcommands: [Add.self, List.self, Token.self, Disable.self, Enable.self, Revoke.self, Delete.self]
    )

    /// `nimbus user add NAME --container ID`: prints the user's web auth token.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user to a container and sign them in.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The user's name.") var name: String
        @Option(help: "The container the user belongs to.") var container: String
        @Option(help: "An email address others may look the user up by.") var email: String?
        @Option(help: "A phone number others may look the user up by.") var phone: String?
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            let result = try await Admin.run(data) { instance in
                try await instance.accounts.addUser(name: name, email: email, phone: phone, container: container)
            }
            Output.print(json: json, ["userRecordName": result.user.userRecordName, "webAuthToken": result.webAuthToken])
        }
    }

    /// `nimbus user list --container ID [--search TEXT] [--limit N]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's users, oldest first.")

        @OptionGroup var data: DataOptions
        @Option(help: "The container.") var container: String
        @Option(help: "Only users whose name or email address contains this.") var search: String?
        @Option(help: "At most this many (1 to 1000).") var limit: Int = 100
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            let users = try await Admin.run(data) { instance in
                try await instance.signIn.users(inContainer: container, search: search, limit: limit)
            }
            if json {
                Output.printJSON([
                    "users": users.map { account -> [String: Any] in
                        var entry: [String: Any] = [
                            "userRecordName": account.identity.userRecordName, "name": account.identity.name,
                            "anonymous": account.isAnonymous, "disabled": account.isDisabled, "createdAt": account.createdAt,
                        ]
                        if let email = account.identity.emailAddress { entry["email"] = email }
                        return entry
                    }
                ])
                return
            }
            for account in users {
                var line = "\(account.identity.userRecordName)  \(account.identity.name)"
                if let email = account.identity.emailAddress { line += "  <\(email)>" }
                if account.isAnonymous { line += "  (anonymous)" }
                if account.isDisabled { line += "  (disabled)" }
                print(line)
            }
        }
    }

    /// `nimbus user disable USER --container ID`.
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a user: their sessions end and they cannot sign in.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The user record name.") var user: String
        @Option(help: "The container.") var container: String
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            try await Admin.run(data) { instance in try await instance.signIn.setDisabled(true, user: user, container: container) }
            Output.print(json: json, ["userRecordName": user, "status": "disabled"])
        }
    }

    /// `nimbus user enable USER --container ID`.
    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a disabled user sign in again.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The user record name.") var user: String
        @Option(help: "The container.") var container: String
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            try await Admin.run(data) { instance in try await instance.signIn.setDisabled(false, user: user, container: container) }
            Output.print(json: json, ["userRecordName": user, "status": "enabled"])
        }
    }

    /// `nimbus user revoke USER --container ID`: signs the user out everywhere.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End every session of a user (they can sign in again).")

        @OptionGroup var data: DataOptions
        @Argument(help: "The user record name.") var user: String
        @Option(help: "The container.") var container: String
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            let ended = try await Admin.run(data) { instance in try await instance.signIn.revokeSessions(of: user, container: container) }
            Output.print(json: json, ["userRecordName": user, "sessionsEnded": "\(ended)"])
        }
    }

    /// `nimbus user token USER --container ID`: a new web auth token for a lost one.
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new web auth token for a user (for one that was lost: the server keeps only hashes)."
        )

        @OptionGroup var data: DataOptions
        @Argument(help: "The user record name (nimbus user list shows them).") var user: String
        @Option(help: "The container.") var container: String
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            let token = try await Admin.run(data) { instance in try await instance.signIn.newWebAuthToken(for: user, container: container) }
            Output.print(json: json, ["userRecordName": user, "webAuthToken": token])
        }
    }

    /// `nimbus user delete USER --container ID`: what the user's own account deletion does.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a user: their private data, their zones and the shares in them, their part in others' shares."
        )

        @OptionGroup var data: DataOptions
        @Argument(help: "The user record name.") var user: String
        @Option(help: "The container.") var container: String
        @Flag(help: "Print one JSON object.") var json = false
        @OptionGroup var confirmation: Confirmation

        func run() async throws {
            try confirmation.confirm("delete user \(user) of \(container) with their private data and their zones")
            let deletion = try await Admin.run(data) { instance in
                try await instance.signIn.deleteUser(user, container: container, database: instance.database)
            }
            Output.print(
                json: json,
                ["userRecordName": user, "status": "deleted", "zonesDeleted": "\(deletion.zonesDeleted)", "sharesLeft": "\(deletion.sharesLeft)"]
            )
        }
    }
}
