//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore

extension ConsoleRoutes {
    /// `GET /console`: the last hour in figures, and every container environment.
    func overview(_ session: ConsoleSession) async throws(NimbusError) -> Response {
        let environments = try await services.operators.containerEnvironments()
        var values = frame("Containers", session: session, nav: "Overview")
        values["hour"] = TelemetryView.summary(
            telemetry.operations(last: 60).values.reduce(into: RequestTelemetry.Figures()) { $0.add($1) },
            seconds: 3600
        )
        values["hasContainers"] = !environments.isEmpty
        values["containers"] = environments.map { environment -> [String: Any] in
            [
                "container": environment.container,
                "containerPath": ConsoleFormat.segment(environment.container),
                "environment": environment.environment.rawValue,
            ]
        }
        return templates.page("overview", values)
    }

    /// `POST /console/containers`: creates a container environment and shows its API token once.
    func createContainer(_ session: ConsoleSession, _ form: FormBody) async throws(NimbusError) -> Response {
        let container = (form["container"] ?? "").trimmingCharacters(in: .whitespaces)
        guard let environment = Environment(parsing: Substring(form["environment"] ?? "")) else {
            throw .badRequest("the environment is development or production")
        }
        let created = try await services.accounts.createContainer(container, environment: environment)
        try await services.operators.audit(session.account, "container.create", container: container, target: environment.rawValue)
        return try await containerPage(session, created.container, search: nil, notice: nil, newToken: created.apiToken)
    }

    /// `GET /console/containers/{container}/{environment}`: API tokens and users.
    func containerPage(
        _ session: ConsoleSession,
        _ environment: ContainerEnvironment,
        search: String?,
        notice: String?,
        newToken: String? = nil
    ) async throws(NimbusError) -> Response {
        let tokens = try await services.accounts.apiTokens(of: environment)
        let search = search.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
        let users = try await services.signIn.users(inContainer: environment.container, search: search, limit: 200)
        let settings = try await services.accounts.containerSettings(environment.container)
        let signIn = try await services.signIn.settings(environment)
        var values = frame(environment.container, session: session, nav: "Overview", notice: notice.flatMap { Self.notices[$0] })
        values.merge(Self.values(of: environment)) { _, new in new }
        if let newToken { values["newToken"] = newToken }
        values["signIn"] = [
            "ways": [
                (signIn.passwordEnabled, "email and password"), (signIn.emailCodeEnabled, "codes by email"), (signIn.anonymousEnabled, "anonymous"),
            ]
            .filter(\.0).map(\.1).joined(separator: ", "),
            "minimumPasswordLength": signIn.minimumPasswordLength,
            "passwordEnabled": signIn.passwordEnabled,
            "emailCodeEnabled": signIn.emailCodeEnabled,
            "anonymousEnabled": signIn.anonymousEnabled,
            "callbackText": signIn.callbackURLs.joined(separator: "\n"),
            "callbackURLs": signIn.callbackURLs,
            // A provider's client secret and the mail server's URL (which holds its password) are
            // secrets: the console says whether they are set, never what they are.
            "providers": signIn.providers.map { provider -> [String: Any] in
                [
                    "name": provider.name, "kind": "\(provider.kind)", "issuer": provider.issuer,
                    "clientIDs": provider.clientIDs.joined(separator: ", "), "secret": provider.clientSecret == nil ? "none" : "set",
                ]
            },
            "mail": signIn.smtpURL == nil ? "the server's" : "its own SMTP server",
        ]
        values["settings"] = [
            "appURLScheme": settings.appURLScheme ?? "",
            "fallbackURL": settings.fallbackURL ?? "",
            "userQuotaMB": settings.userQuotaBytes.map { String($0 / 1_000_000) } ?? "",
            "assetMaxMB": settings.maximumAssetBytes.map { String($0 / 1_000_000) } ?? "",
        ]
        let serverKeys = try await services.accounts.serverKeys(ofContainer: environment.container)
        values["hasServerKeys"] = !serverKeys.isEmpty
        values["serverKeys"] = serverKeys.map { entry -> [String: Any] in
            ["id": entry.key.keyID, "actsAs": entry.key.userRecordName, "created": ConsoleFormat.time(entry.createdAt)]
        }
        if let push = pushSettings { values["apns"] = push.map { ["label": $0.label, "value": $0.value] } }
        values["search"] = search ?? ""
        values["tokens"] = tokens.map { token -> [String: Any] in
            ["id": String(token.hash.prefix(12)), "created": ConsoleFormat.time(token.createdAt)]
        }
        values["users"] = users.map { user -> [String: Any] in
            [
                "name": user.identity.name,
                "email": user.identity.emailAddress ?? "",
                "userRecordName": user.identity.userRecordName,
                "state": user.isDisabled ? "disabled" : user.isAnonymous ? "anonymous" : "active",
                "created": ConsoleFormat.time(user.createdAt),
                "toggle": user.isDisabled ? "enable" : "disable",
                "toggleLabel": user.isDisabled ? "Enable" : "Disable",
                "toggleClass": user.isDisabled ? "" : "danger",
            ]
        }
        return templates.page("container", values)
    }

    /// `POST .../settings`: the container's share-page links, per-user quota and asset limit
    /// (what `nimbus container configure` sets; they apply to both environments). An empty
    /// number removes the quota, or goes back to the server's asset limit.
    func saveSettings(_ session: ConsoleSession, _ environment: ContainerEnvironment, _ form: FormBody) async throws(NimbusError) -> Response {
        func megabytes(_ name: String, _ label: String) throws(NimbusError) -> Int64? {
            let text = (form[name] ?? "").trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { return nil }
            guard let number = Int64(text), number > 0, number <= 1_000_000 else {
                throw .badRequest("\(label) is a whole number of megabytes from 1 to 1000000, or empty")
            }
            return number * 1_000_000
        }
        let quota = try megabytes("userQuotaMB", "the per-user quota")
        let assetLimit = try megabytes("assetMaxMB", "the asset limit")
        _ = try await services.accounts.configureContainer(
            environment.container,
            appURLScheme: (form["appURLScheme"] ?? "").trimmingCharacters(in: .whitespaces),
            fallbackURL: (form["fallbackURL"] ?? "").trimmingCharacters(in: .whitespaces),
            userQuotaBytes: .some(quota),
            maximumAssetBytes: .some(assetLimit)
        )
        try await services.operators.audit(session.account, "container.configure", container: environment.container, target: "settings")
        return redirect(containerPath(environment) + "?notice=settings-saved")
    }

    /// `POST .../sign-in`: the environment's ways in, shortest password and callback URLs (one
    /// a line). Providers are set with `nimbus auth provider`, which takes their secrets.
    func saveSignInSettings(_ session: ConsoleSession, _ environment: ContainerEnvironment, _ form: FormBody) async throws(NimbusError)
        -> Response
    {
        var settings = try await services.signIn.settings(environment)
        settings.passwordEnabled = form["password"] == "on"
        settings.emailCodeEnabled = form["emailCode"] == "on"
        settings.anonymousEnabled = form["anonymous"] == "on"
        guard let length = Int((form["minimumPasswordLength"] ?? "").trimmingCharacters(in: .whitespaces)) else {
            throw .badRequest("the shortest password is a whole number of characters; nothing was saved")
        }
        settings.minimumPasswordLength = length
        settings.callbackURLs = (form["callbackURLs"] ?? "").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        try await services.signIn.saveSettings(settings, for: environment)
        try await services.operators.audit(
            session.account,
            "sign-in.configure",
            container: environment.container,
            target: environment.environment.rawValue
        )
        return redirect(containerPath(environment) + "?notice=sign-in-saved")
    }

    /// `POST .../api-tokens`: another API token, shown once.
    func createAPIToken(_ session: ConsoleSession, _ environment: ContainerEnvironment) async throws(NimbusError) -> Response {
        let token = try await services.accounts.createAPIToken(for: environment)
        try await services.operators.audit(
            session.account,
            "api-token.create",
            container: environment.container,
            target: String(Credentials.hash(token).prefix(12))
        )
        return try await containerPage(session, environment, search: nil, notice: nil, newToken: token)
    }

    /// `POST .../api-tokens/{hash prefix}/revoke`.
    func revokeAPIToken(_ session: ConsoleSession, _ environment: ContainerEnvironment, hashPrefix: String) async throws(NimbusError) -> Response {
        try await services.accounts.revokeAPIToken(hashPrefix: hashPrefix, of: environment)
        try await services.operators.audit(session.account, "api-token.revoke", container: environment.container, target: hashPrefix)
        return redirect(containerPath(environment) + "?notice=token-revoked")
    }

    /// `POST .../server-keys`: registers a public key; requests signed with its private key
    /// act as the container's developer, on the public database.
    func addServerKey(_ session: ConsoleSession, _ environment: ContainerEnvironment, _ form: FormBody) async throws(NimbusError) -> Response {
        let keyID = try await services.accounts.addServerKey(publicKeyPEM: form["publicKey"] ?? "", container: environment.container)
        try await services.operators.audit(session.account, "server-key.add", container: environment.container, target: keyID)
        return redirect(containerPath(environment) + "?notice=server-key-added")
    }

    /// `POST .../server-keys/{key ID}/revoke`: requests signed with the key fail from now on.
    func revokeServerKey(_ session: ConsoleSession, _ environment: ContainerEnvironment, keyID: String) async throws(NimbusError) -> Response {
        try await services.accounts.revokeServerKey(id: keyID, ofContainer: environment.container)
        try await services.operators.audit(session.account, "server-key.revoke", container: environment.container, target: keyID)
        return redirect(containerPath(environment) + "?notice=server-key-revoked")
    }

    /// `POST .../users/{user}/{disable|enable|sign-out|delete}`. Deleting removes the user's
    /// account in every environment of the container, as `nimbus user delete` does.
    func changeUser(_ session: ConsoleSession, _ environment: ContainerEnvironment, user: String, action: String) async throws(NimbusError)
        -> Response
    {
        switch action {
        case "delete":
            let deleted = try await services.signIn.deleteUser(user, container: environment.container, database: services.database)
            try await services.operators.audit(
                session.account,
                "user.delete",
                container: environment.container,
                target: "\(user) (\(deleted.zonesDeleted) zones deleted, \(deleted.sharesLeft) shares left)"
            )
            return redirect(containerPath(environment) + "?notice=user-delete")
        case "disable": try await services.signIn.setDisabled(true, user: user, container: environment.container)
        case "enable": try await services.signIn.setDisabled(false, user: user, container: environment.container)
        case "sign-out": _ = try await services.signIn.revokeSessions(of: user, container: environment.container)
        default: throw NimbusError(.unknownItem, "no such action; use disable, enable, sign-out or delete")
        }
        try await services.operators.audit(session.account, "user." + action, container: environment.container, target: user)
        return redirect(containerPath(environment) + "?notice=user-" + action)
    }

    private func containerPath(_ environment: ContainerEnvironment) -> String {
        "/console/containers/\(ConsoleFormat.segment(environment.container))/\(environment.environment.rawValue)"
    }

    /// What a change's redirect says, by the code in its `notice` query: fixed texts, so a link
    /// cannot put words in the console's mouth.
    private static let notices = [
        "token-revoked": "The API token is revoked: requests with it fail from now on.",
        "server-key-added": "The key is registered: requests signed with its private key work now, as the container's developer.",
        "server-key-revoked": "The server-to-server key is revoked: requests signed with it fail from now on.",
        "user-disable": "The user is disabled: their sessions ended and they cannot sign in.",
        "user-enable": "The user can sign in again.",
        "user-delete": "The user is deleted: their account, private data and zones are gone; what they wrote to the public database stays.",
        "user-sign-out": "The user is signed out on every device.",
        "sign-in-saved": "The sign-in settings are saved; they apply to the next sign-in.",
        "settings-saved": "The container's settings are saved; running servers apply a new quota within ten seconds.",
    ]
}

extension ConsoleRoutes {
    /// A user's account and footprint; `.unknownItem` when the environment has no such user.
    private func account(of user: String, in environment: ContainerEnvironment) async throws(NimbusError) -> (AccountSummary, UserFootprint) {
        let caller = Caller(container: environment.container, environment: environment.environment, kind: .user, userRecordName: user)
        let summary: AccountSummary
        do {
            summary = try await services.signIn.account(caller: caller)
        } catch  where error.code == .authenticationFailed {
            throw NimbusError(.unknownItem, "no user \(user.prefix(255)) in \(environment.container.prefix(255))")
        }
        return (summary, try await services.operators.footprint(of: user, in: environment))
    }

    /// `GET .../users/{user}/delete`: what deleting the user removes, and the button.
    func deleteUserPage(_ session: ConsoleSession, _ environment: ContainerEnvironment, user: String) async throws(NimbusError) -> Response {
        let (summary, footprint) = try await account(of: user, in: environment)
        var values = frame("Delete \(summary.account.identity.name)", session: session, nav: "Overview")
        values.merge(Self.values(of: environment)) { _, new in new }
        values["name"] = summary.account.identity.name
        values["userRecordName"] = user
        values["zones"] = footprint.zones
        values["records"] = footprint.records
        values["sharesOwned"] = footprint.sharesOwned
        return templates.page("user-delete", values)
    }

    /// `GET .../users/{user}`: a user's account and how much of them there is, in counts. Their
    /// data itself is theirs: the console shows no record, zone name or subscription of theirs
    /// unless they granted support access, and then on its own page, every read recorded.
    func userPage(_ session: ConsoleSession, _ environment: ContainerEnvironment, user: String) async throws(NimbusError) -> Response {
        let (summary, footprint) = try await account(of: user, in: environment)
        var values = frame(summary.account.identity.name, session: session, nav: "Overview")
        values.merge(Self.values(of: environment)) { _, new in new }
        values["name"] = summary.account.identity.name
        values["email"] = summary.account.identity.emailAddress ?? ""
        values["userRecordName"] = user
        values["state"] = summary.account.isDisabled ? "disabled" : summary.account.isAnonymous ? "anonymous" : "active"
        values["since"] = ConsoleFormat.time(summary.account.createdAt)
        values["providers"] = summary.providers.isEmpty ? "none" : summary.providers.sorted().joined(separator: ", ")
        values["counts"] = [
            ["label": "Zones", "value": footprint.zones], ["label": "Records", "value": footprint.records],
            ["label": "Shares owned", "value": footprint.sharesOwned], ["label": "Shares joined", "value": footprint.sharesJoined],
            ["label": "Subscriptions", "value": footprint.subscriptions], ["label": "Signed-in sessions", "value": footprint.sessions],
        ]
        values["toggle"] = summary.account.isDisabled ? "enable" : "disable"
        values["toggleLabel"] = summary.account.isDisabled ? "Enable" : "Disable"
        if let grant = try await services.support.liveGrant(of: user, in: environment) {
            values["support"] = Self.grantText(grant)
        }
        return templates.page("user", values)
    }
}
