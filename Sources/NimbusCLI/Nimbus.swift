//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusModel

/// The `nimbus` command: the server and its administration.
@main
struct Nimbus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nimbus",
        abstract: "A self-hosted server for the CloudKit model, speaking CloudKit Web Services.",
        version: NimbusVersion.current,
        subcommands: [
            Serve.self, ContainerCommand.self, UserCommand.self, AuthCommand.self, KeyCommand.self, ShareCommand.self, Migrate.self,
            ZoneCommand.self, RecordCommand.self, ChangesCommand.self, SubscriptionCommand.self, NotificationsCommand.self,
            SchemaCommand.self, LoginCommand.self, LogoutCommand.self, OperatorCommand.self, ConfigCommand.self,
        ]
    )

    /// Runs the command, then reports a web auth token the server rotated meanwhile.
    static func main() async {
        do {
            try await Settings.load()
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            TokenRotationNotice.report()
        } catch let error as NimbusError where error.code == .zoneNotFound {
            let hint = await SharedZoneHint.hint().map { ": \($0)" } ?? ""
            FileHandle.standardError.write(Data("Error: \(error)\(hint)\n".utf8))
            exit(withError: ExitCode.failure)
        } catch let error as NimbusError where error.code == .authenticationRequired {
            // The API token worked; the operation needs a user, and none was named.
            FileHandle.standardError.write(
                Data(
                    "Error: \(error): this needs a signed-in user: pass --web-auth-token or set NIMBUS_WEB_AUTH_TOKEN, or sign in with `nimbus login`\n"
                        .utf8
                )
            )
            exit(withError: ExitCode.failure)
        } catch let error as NimbusError where error.code == .networkUnavailable {
            // The common first mistake: the client commands run before the server does.
            FileHandle.standardError.write(Data("Error: \(error.reason): is `nimbus serve` running?\n".utf8))
            exit(withError: ExitCode.failure)
        } catch {
            TokenRotationNotice.report()
            exit(withError: error)
        }
    }
}
