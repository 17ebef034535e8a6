//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import NimbusModel
import NimbusServer
import NimbusStore

extension KeyCommand {
    /// `nimbus key webhook --container ID --key-id KEY --url URL`: prints the signing secret.
    struct Webhook: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a server-to-server key's notifications to a URL (or stop, with --remove).",
            discussion: """
                The key's subscriptions in the public database notify it. Each delivery is a POST of
                {"notifications": [...]}, as the inbox returns them, with the header
                X-Nimbus-Signature: t=TIMESTAMP,v1=HMAC-SHA256(secret, "TIMESTAMP.BODY") in hex.
                The secret is printed once. Deliveries are retried with back-off until a 2xx answer.
                """
        )

        @OptionGroup var data: DataOptions
        @Option(help: "The container the key belongs to.") var container: String
        @Option(help: "development or production.") var environment = "development"
        @Option(name: .customLong("key-id"), help: "The key's ID, as `nimbus key add` printed it.") var keyID: String
        @Option(help: "Where to POST: https://..., or http:// on this machine.") var url: String?
        @Flag(help: "Stop sending to the key's webhook.") var remove = false
        @Flag(help: "Print one JSON object.") var json = false

        func validate() throws {
            guard remove != (url != nil) else { throw ValidationError("give either --url URL or --remove") }
            guard Environment(parsing: environment) != nil else { throw ValidationError("environment must be development or production") }
        }

        func run() async throws {
            let target = ContainerEnvironment(container: container, environment: Environment(parsing: environment) ?? .development)
            if remove {
                let removed = try await Admin.run(data) { try await $0.removeWebhook(keyID: keyID, container: target) }
                Output.print(json: json, ["keyID": keyID, "removed": removed ? "true" : "false"])
                return
            }
            let url = url ?? ""
            let secret = try await Admin.run(data) { try await $0.configureWebhook(keyID: keyID, container: target, url: url) }
            Output.print(json: json, ["keyID": keyID, "url": url, "secret": secret])
        }
    }
}
