//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// A parsed `/database/1/{container}/{environment}/{database}/{operation}` path.
///
/// Environment and database match case-insensitively (CloudKitPy users paste `DEVELOPMENT`).
/// `users/*` are routed under any database segment, as MistKit sends them under its configured
/// one.
public struct DatabaseRoute: Sendable, Hashable {
    public var container: String
    public var environment: Environment
    public var scope: DatabaseScope
    public var operation: Operation

    /// The operations Nimbus answers.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        case zonesList = "zones/list"
        case zonesLookup = "zones/lookup"
        case zonesModify = "zones/modify"
        case zonesChanges = "zones/changes"
        case databaseChanges = "changes/database"
        case zoneChanges = "changes/zone"
        case recordsChanges = "records/changes"
        case recordsModify = "records/modify"
        case recordsLookup = "records/lookup"
        case recordsQuery = "records/query"
        case recordsCount = "records/count"
        case assetsUpload = "assets/upload"
        case assetsRereference = "assets/rereference"
        case linksCreate = "links/create"
        case linksList = "links/list"
        case linksRevoke = "links/revoke"
        case linksRotate = "links/rotate"
        case requestsCreate = "requests/create"
        case requestsList = "requests/list"
        case requestsApprove = "requests/approve"
        case requestsDeny = "requests/deny"
        case recordsResolve = "records/resolve"
        case recordsAccept = "records/accept"
        case usersCurrent = "users/current"
        case usersCaller = "users/caller"
        case usersDiscover = "users/discover"
        case usersLookupEmail = "users/lookup/email"
        case usersLookupID = "users/lookup/id"
        case usersLookupContacts = "users/lookup/contacts"
        case usersContactsVerify = "users/contacts/verify"
        case usersContactsConfirm = "users/contacts/confirm"
        case usersSupportGrant = "users/support/grant"
        case usersSupportList = "users/support/list"
        case usersSupportRevoke = "users/support/revoke"
        case subscriptionsList = "subscriptions/list"
        case subscriptionsLookup = "subscriptions/lookup"
        case subscriptionsModify = "subscriptions/modify"
        case notificationsExplain = "notifications/explain"
        case tokensCreate = "tokens/create"
        case tokensRegister = "tokens/register"

        /// Whether the operation's answer depends on no body. Such requests are GETs in
        /// CloudKit; a body sent anyway must still be JSON, since every other endpoint would
        /// refuse it (the others parse theirs).
        public var ignoresBody: Bool {
            switch self {
            case .zonesList, .usersCurrent, .usersCaller, .usersLookupContacts, .usersSupportList, .subscriptionsList: true
            default: false
            }
        }
    }

    private static func exactEnvironment(_ text: Substring) -> Environment? {
        switch text {
        case "development": .development
        case "production": .production
        default: nil
        }
    }

    private static func exactScope(_ text: Substring) -> DatabaseScope? {
        switch text {
        case "public": .public
        case "private": .private
        case "shared": .shared
        default: nil
        }
    }

    private static func operation(area: Substring, name: Substring) -> Operation? {
        switch (area, name) {
        case ("zones", "list"): .zonesList
        case ("zones", "lookup"): .zonesLookup
        case ("zones", "modify"): .zonesModify
        case ("zones", "changes"): .zonesChanges
        case ("changes", "database"): .databaseChanges
        case ("changes", "zone"): .zoneChanges
        case ("records", "changes"): .recordsChanges
        case ("records", "modify"): .recordsModify
        case ("records", "lookup"): .recordsLookup
        case ("records", "query"): .recordsQuery
        case ("records", "count"): .recordsCount
        case ("assets", "upload"): .assetsUpload
        case ("assets", "rereference"): .assetsRereference
        case ("links", "create"): .linksCreate
        case ("links", "list"): .linksList
        case ("links", "revoke"): .linksRevoke
        case ("links", "rotate"): .linksRotate
        case ("requests", "create"): .requestsCreate
        case ("requests", "list"): .requestsList
        case ("requests", "approve"): .requestsApprove
        case ("requests", "deny"): .requestsDeny
        case ("records", "resolve"): .recordsResolve
        case ("records", "accept"): .recordsAccept
        case ("users", "current"): .usersCurrent
        case ("users", "caller"): .usersCaller
        case ("users", "discover"): .usersDiscover
        case ("subscriptions", "list"): .subscriptionsList
        case ("subscriptions", "lookup"): .subscriptionsLookup
        case ("subscriptions", "modify"): .subscriptionsModify
        case ("notifications", "explain"): .notificationsExplain
        case ("tokens", "create"): .tokensCreate
        case ("tokens", "register"): .tokensRegister
        default: nil
        }
    }

    /// The operations three segments long: `users/lookup/{email,id,contacts}` and the
    /// extensions `users/contacts/{verify,confirm}` and `users/support/{grant,list,revoke}`.
    private static func lookupOperation(_ segments: ArraySlice<Substring>) -> Operation? {
        guard segments.count == 3, segments.first == "users" else { return nil }
        switch (segments.dropFirst().first, segments.last) {
        case ("lookup", "email"): return .usersLookupEmail
        case ("lookup", "id"): return .usersLookupID
        case ("lookup", "contacts"): return .usersLookupContacts
        case ("contacts", "verify"): return .usersContactsVerify
        case ("contacts", "confirm"): return .usersContactsConfirm
        case ("support", "grant"): return .usersSupportGrant
        case ("support", "list"): return .usersSupportList
        case ("support", "revoke"): return .usersSupportRevoke
        default: return nil
        }
    }

    /// The methods every database operation takes, as an `Allow` header lists them.
    public static let allowedMethods = "GET, POST"

    /// The first segment of a path: `database`, or `device` for OpenCloudKit's push tokens.
    public enum Service: Sendable {
        case database
        case device
    }

    /// Parses a request path, or says why it is not one Nimbus answers.
    public static func parse(_ path: String) throws(NimbusError) -> DatabaseRoute {
        // Split on the byte: splitting a String on a Character walks grapheme clusters.
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { Substring($0) }
        let service: Service? =
            switch segments.first {
            case "database": .database
            case "device": .device
            default: nil
            }
        guard let service, segments.count >= 6, segments[1] == "1" else {
            throw .badRequest("expected a path /database/1/{container}/{environment}/{database}/{operation}")
        }
        return try DatabaseRoute(service: service, container: segments[2], environment: segments[3], rest: segments[4...])
    }

    /// The route of a path split into its segments: `/{service}/1/{container}/{environment}/{rest}`,
    /// as the router matched it or ``parse(_:)`` split it.
    public init(service: Service, container: Substring, environment: Substring, rest: ArraySlice<Substring>) throws(NimbusError) {
        // Push tokens belong to no database: Apple documents `/database/1/{c}/{env}/tokens/{op}`,
        // OpenCloudKit sends `/device/1/...`, MistKit adds a database segment (parsed below).
        // Apple documents `subscriptions/lookup` without a database segment: the private one.
        if rest.count == 2, let operation = Self.operation(area: rest.first!, name: rest.last!),
            operation == .tokensCreate || operation == .tokensRegister || (operation == .subscriptionsLookup && service == .database),
            let environment = Self.exactEnvironment(environment) ?? Environment(parsing: environment)
        {
            self.init(container: String(container), environment: environment, scope: .private, operation: operation)
            return
        }
        guard rest.count >= 3, service == .database else {
            throw .badRequest("expected a path /database/1/{container}/{environment}/{database}/{operation}")
        }
        // Exact spellings first: this runs on every request, and lower-casing allocates.
        guard let environment = Self.exactEnvironment(environment) ?? Environment(parsing: environment) else {
            throw .badRequest("unknown environment '\(environment.prefix(64))'; use development or production")
        }
        let database = rest.first!
        guard let scope = Self.exactScope(database) ?? DatabaseScope(parsing: database) else {
            throw .badRequest("unknown database '\(database.prefix(64))'; use public, private or shared")
        }
        let operationSegments = rest.dropFirst()
        let named =
            operationSegments.count == 2
            ? Self.operation(area: operationSegments.first!, name: operationSegments.last!) : Self.lookupOperation(operationSegments)
        guard let operation = named else {
            throw .badRequest("unknown operation '\(operationSegments.joined(separator: "/").prefix(64))'")
        }
        self.init(container: String(container), environment: environment, scope: scope, operation: operation)
    }

    /// Creates a route.
    public init(container: String, environment: Environment, scope: DatabaseScope, operation: Operation) {
        self.container = container
        self.environment = environment
        self.scope = scope
        self.operation = operation
    }
}
