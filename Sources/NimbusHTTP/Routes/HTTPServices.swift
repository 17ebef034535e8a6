//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusEngine

/// The engine's services the HTTP routes call.
public struct HTTPServices: Sendable {
    /// Zones, records, queries, change feeds, sharing and subscriptions.
    public var database: DatabaseService
    /// Containers, users and credentials.
    public var accounts: AccountService
    /// Turns committed writes into notifications and hands them to connections.
    public var dispatcher: NotificationDispatcher
    /// The long-poll channel of CloudKit JS's notifications.
    public var courier: WebCourier
    /// People signing themselves up and in.
    public var signIn: SignInService
    /// Asset uploads and downloads.
    public var assets: AssetService
    /// The console's operators and audit log.
    public var operators: OperatorService
    /// Users' grants of support access, and the console's reads under them.
    public var support: SupportAccessService
    /// Record types and their fields, per container environment.
    public var schema: SchemaAdministration

    /// Creates the set of services.
    public init(
        database: DatabaseService,
        accounts: AccountService,
        signIn: SignInService,
        operators: OperatorService,
        support: SupportAccessService,
        schema: SchemaAdministration,
        assets: AssetService,
        dispatcher: NotificationDispatcher,
        courier: WebCourier
    ) {
        self.database = database
        self.accounts = accounts
        self.signIn = signIn
        self.operators = operators
        self.support = support
        self.schema = schema
        self.assets = assets
        self.dispatcher = dispatcher
        self.courier = courier
    }
}
