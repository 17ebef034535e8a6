//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusClient
import NimbusModel

/// `nimbus subscription list|create|delete`: the signed-in user's subscriptions.
struct SubscriptionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscription",
        abstract: "List, create and delete subscriptions (a client of any Nimbus server).",
        subcommands: [List.self, Create.self, Delete.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your subscriptions in the database.")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            for subscription in try await client.database().allSubscriptions() {
                SubscriptionCommand.print(subscription, json: client.json)
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create (or replace) a subscription.",
            discussion: """
                A zone subscription fires on any change in --zone; a database subscription on any change \
                in the database; a query subscription on changes to --record-type records. --rules names a \
                JSON file with the subscription's notification rules (see docs/notifications.md).
                """
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: "query, zone or database.") var type: String
        @Option(help: "The subscription's ID (default: assigned by the server).") var id: String?
        @Option(help: "The zone to watch (zone subscriptions; narrows a query subscription).") var zone: String?
        @Option(name: .customLong("record-type"), help: "The record type a query subscription watches.") var recordType: String?
        @Option(name: .customLong("fires-on"), help: "create,update,delete (query subscriptions; default all).") var firesOn: String?
        @Option(help: "The alert text of a visible notification.") var alert: String?
        @Flag(help: "Send silent notifications (content-available) that wake the app.") var silent = false
        @Option(help: "A JSON file holding the subscription's rules array.") var rules: String?

        func run() async throws {
            let database = try client.database()
            let kind: Subscription.Kind
            switch type.lowercased() {
            case "zone":
                guard let zone else { throw CommandFailure(description: "a zone subscription needs --zone") }
                kind = .zone(client.zoneID(zone))
            case "database":
                kind = .database
            case "query":
                guard let recordType else { throw CommandFailure(description: "a query subscription needs --record-type") }
                var operations = Set(Subscription.FiresOn.allCases)
                if let firesOn {
                    operations = []
                    for name in firesOn.split(separator: ",") {
                        guard let operation = Subscription.FiresOn(rawValue: name.lowercased()) else {
                            throw CommandFailure(description: "--fires-on takes create, update and delete, not \(name)")
                        }
                        operations.insert(operation)
                    }
                }
                kind = .query(Query(recordType: recordType), zoneID: zone.map(client.zoneID), firesOn: operations, firesOnce: false)
            default:
                throw CommandFailure(description: "the subscription type is query, zone or database, not \(type)")
            }
            var subscription = Subscription(
                subscriptionID: id ?? "",
                kind: kind,
                notificationInfo: NotificationInfo(alertBody: alert, shouldSendContentAvailable: silent)
            )
            if let rules {
                guard let text = try? String(contentsOfFile: rules, encoding: .utf8) else {
                    throw CommandFailure(description: "cannot read the rules file \(rules)")
                }
                subscription.rules = try Subscription.rules(fromJSON: text)
            }
            for saved in try await database.save(subscriptions: [subscription]) {
                SubscriptionCommand.print(saved, json: client.json)
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete subscriptions by ID.")
        @OptionGroup var client: ClientOptions
        @Argument(help: "Subscription IDs.") var ids: [String]

        func run() async throws {
            try await client.database().delete(subscriptionIDs: ids)
            for id in ids {
                if client.json { Output.printJSON(["subscriptionID": id, "deleted": true]) } else { Swift.print("deleted \(id)") }
            }
        }
    }

    static func print(_ subscription: Subscription, json: Bool) {
        var fields: [String: Any] = ["subscriptionID": subscription.subscriptionID, "subscriptionType": subscription.kind.typeName]
        if let zone = subscription.zoneID { fields["zoneName"] = zone.zoneName }
        if case .query(let query, _, let firesOn, _) = subscription.kind {
            fields["recordType"] = query.recordType
            fields["firesOn"] = firesOn.sorted().map(\.rawValue)
        }
        if !subscription.rules.isEmpty { fields["rules"] = subscription.rules.map(\.name) }
        if json {
            Output.printJSON(fields)
        } else {
            var line = "\(subscription.subscriptionID)  \(subscription.kind.typeName)"
            if let zone = subscription.zoneID { line += "  zone \(zone.zoneName)" }
            if case .query(let query, _, let firesOn, _) = subscription.kind {
                line += "  \(query.recordType) on \(firesOn.sorted().map(\.rawValue).joined(separator: ","))"
            }
            if !subscription.rules.isEmpty { line += "  rules: \(subscription.rules.map(\.name).joined(separator: ", "))" }
            Swift.print(line)
        }
    }
}
