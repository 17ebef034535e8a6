//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore
import NimbusWire

/// Signing up and in over the wire: `POST /auth/1/{container}/{environment}/{action}` with the
/// container's API token as `ckAPIToken` (and, for actions on the caller's own account, the
/// caller's `ckWebAuthToken`). ``AuthRequest`` lists the actions and their fields; answers are
/// ``AuthResponse``s, failures CloudKit error dictionaries.
struct AuthRoutes: Sendable {
    let services: HTTPServices
    let bodies: RequestBodyReader

    /// The longest `User-Agent` kept as a session's device name.
    static let maximumDeviceLength = 200

    func add(to router: some RouterMethods<NimbusRequestContext>) {
        router.route("/auth/1/:container/:environment/:action", methods: [.post, .get], use: respond)
        router.post("/auth/1/:container/:environment/notifications/:provider", use: appleNotification)
    }

    /// Sign in with Apple's server-to-server notifications, `{"payload": JWT}`: the address an
    /// operator registers with Apple for a provider of kind `apple`. Apple sends no API token;
    /// the payload's signature is what authenticates it.
    @Sendable
    private func appleNotification(_ request: Request, context: NimbusRequestContext) async throws -> Response {
        var request = request
        let container = context.parameters.get("container") ?? ""
        let environmentName = context.parameters.get("environment") ?? ""
        guard let environment = Environment(parsing: Substring(environmentName)) else {
            throw NimbusError.badRequest("unknown environment '\(environmentName.prefix(64))'; use development or production")
        }
        context.outcome.operation = "auth/notifications"
        let body = try await bodies.bytes(of: &request)
        let json: JSONValue
        do {
            json = try JSONParser.parse(body)
        } catch {
            throw NimbusError.badRequest("request body is not valid JSON: \(error)")
        }
        let payload = try json.object(at: "the body").optional("payload")?.string(at: "payload")
        let outcome = try await services.signIn.handleAppleNotification(
            payload: payload,
            provider: context.parameters.get("provider") ?? "",
            in: ContainerEnvironment(container: container, environment: environment)
        )
        let status = outcome == .ignored ? "IGNORED" : "HANDLED"
        return JSONResponse.ok(AuthResponse.status(status, ended: nil).jsonBytes())
    }

    @Sendable
    private func respond(_ request: Request, context: NimbusRequestContext) async throws -> Response {
        var request = request
        let container = context.parameters.get("container") ?? ""
        let environmentName = context.parameters.get("environment") ?? ""
        guard let environment = Environment(parsing: Substring(environmentName)) else {
            throw NimbusError.badRequest("unknown environment '\(environmentName.prefix(64))'; use development or production")
        }
        guard let action = AuthAction(rawValue: context.parameters.get("action") ?? "") else {
            throw NimbusError.badRequest(
                "unknown action '\((context.parameters.get("action") ?? "").prefix(64))'; use "
                    + AuthAction.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        guard request.method == .post || [.sessions, .account, .export].contains(action) else {
            throw NimbusError.badRequest("\(action.rawValue) takes a POST")
        }
        let body = try await bodies.bytes(of: &request)
        let fields = body.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) ? try AuthRequest.parse(body) : AuthRequest()
        let query = request.uri.queryParameters
        guard let apiToken = query["ckAPIToken"] else {
            throw NimbusError(.authenticationFailed, "request has no ckAPIToken")
        }
        let webAuthToken = query["ckWebAuthToken"].map(String.init)
        let authentication = try await authenticate(String(apiToken), webAuthToken, action: action, container: container, environment: environment)
        let caller = authentication.caller
        context.outcome.operation = "auth/\(action.rawValue)"
        let signInContext = SignInContext(
            container: container,
            environment: environment,
            clientAddress: context.clientAddress,
            device: request.headers[.userAgent].map { String($0.prefix(Self.maximumDeviceLength)) }
        )
        let signIn = services.signIn
        let answer: AuthResponse
        switch action {
        case .signup:
            if fields.email == nil && fields.password == nil {
                answer = .init(try await signIn.signUpAnonymously(name: fields.name, context: signInContext))
            } else {
                answer = .init(try await signIn.signUp(email: fields.email, password: fields.password, name: fields.name, context: signInContext))
            }
        case .verify:
            answer = .init(
                try await signIn.verify(email: fields.email, code: fields.code, newPassword: fields.password, caller: caller, context: signInContext)
            )
        case .signin:
            if let credential = fields.anonymousCredential {
                answer = .init(try await signIn.signIn(anonymousCredential: credential, context: signInContext))
            } else {
                answer = .init(try await signIn.signIn(email: fields.email, password: fields.password, context: signInContext))
            }
        case .code:
            answer = .init(try await signIn.requestCode(email: fields.email, name: fields.name, context: signInContext))
        case .reset:
            answer = .init(try await signIn.requestPasswordReset(email: fields.email, context: signInContext))
        case .token:
            answer = .init(try await signIn.exchange(provider: fields.provider, idToken: fields.idToken, nonce: fields.nonce, context: signInContext))
        case .link:
            if fields.provider != nil || fields.idToken != nil {
                try await signIn.linkProvider(
                    provider: fields.provider,
                    idToken: fields.idToken,
                    nonce: fields.nonce,
                    caller: caller,
                    context: signInContext
                )
                answer = .status("LINKED", ended: nil)
            } else {
                answer = .init(try await signIn.linkEmail(email: fields.email, password: fields.password, caller: caller, context: signInContext))
            }
        case .password:
            try await signIn.changePassword(
                current: fields.currentPassword,
                new: fields.password,
                caller: caller,
                webAuthToken: webAuthToken,
                context: signInContext
            )
            answer = .status("CHANGED", ended: nil)
        case .signout:
            try await signIn.signOut(caller: caller, webAuthToken: webAuthToken)
            return JSONResponse.ok(AuthResponse.status("SIGNED_OUT", ended: 1).jsonBytes())
        case .export:
            return JSONResponse.ok(try await export(caller: caller, webAuthToken: webAuthToken).jsonBytes())
        case .account:
            let summary =
                fields.name != nil || fields.discoverable != nil
                ? try await signIn.updateAccount(caller: caller, name: fields.name, discoverable: fields.discoverable)
                : try await signIn.account(caller: caller)
            answer = .account(.init(summary))
        case .delete:
            guard fields.confirm == true else {
                throw NimbusError.badRequest("deleting an account removes its data for good; send {\"confirm\": true}")
            }
            let deletion = try await signIn.deleteAccount(caller: caller, database: services.database)
            return JSONResponse.ok(AuthResponse.deleted(zonesDeleted: deletion.zonesDeleted, sharesLeft: deletion.sharesLeft).jsonBytes())
        case .sessions:
            if fields.all == true {
                answer = .status("SIGNED_OUT", ended: try await signIn.endSessions(caller: caller, sessionID: nil))
                return JSONResponse.ok(answer.jsonBytes())
            } else if let session = fields.end {
                answer = .status("SIGNED_OUT", ended: try await signIn.endSessions(caller: caller, sessionID: session))
            } else {
                answer = .sessions(
                    try await signIn.sessions(caller: caller, webAuthToken: webAuthToken).map {
                        .init(sessionID: $0.id, device: $0.device, lastActiveAt: $0.lastActiveAt, expiresAt: $0.expiresAt, isCurrent: $0.isCurrent)
                    }
                )
            }
        }
        // A caller's token rotated by this request goes back as on every CloudKit request.
        if let rotated = authentication.webAuthToken { context.outcome.webAuthToken = rotated }
        return JSONResponse.ok(answer.jsonBytes())
    }
}

extension AuthRoutes {
    /// Everything of the caller's in the request's environment.
    private func export(caller: Caller, webAuthToken: String?) async throws(NimbusError) -> AccountExportResponse {
        let summary = try await services.signIn.account(caller: caller)
        let sessions = try await services.signIn.sessions(caller: caller, webAuthToken: webAuthToken)
        let data = try await services.database.exportData(caller: caller)
        return AccountExportResponse(
            exportedAt: services.signIn.now,
            environment: caller.environment,
            account: .init(summary),
            sessions: sessions.map {
                .init(sessionID: $0.id, device: $0.device, lastActiveAt: $0.lastActiveAt, expiresAt: $0.expiresAt, isCurrent: $0.isCurrent)
            },
            zones: data.zones.map { (zoneID: $0.zone.zoneID, records: $0.records) },
            sharedZones: data.sharedZones.map(\.zoneID),
            subscriptions: data.subscriptions
        )
    }

    /// The caller of an action. Actions on the caller's own account need a valid token; the
    /// others sign someone in, so a token that has ended (the reason to sign in again) is no
    /// reason to refuse them: they go on without it. `verify` uses a valid one (a code that adds
    /// an address to the caller's account) and ignores one that has ended.
    private func authenticate(
        _ apiToken: String,
        _ webAuthToken: String?,
        action: AuthAction,
        container: String,
        environment: NimbusModel.Environment
    ) async throws(NimbusError) -> Authentication {
        let accounts = services.accounts
        guard action.needsCaller || action == .verify else {
            return try await accounts.authenticate(apiToken: apiToken, webAuthToken: nil, container: container, environment: environment)
        }
        do throws(NimbusError) {
            return try await accounts.authenticate(apiToken: apiToken, webAuthToken: webAuthToken, container: container, environment: environment)
        } catch  where error.code == .authenticationFailed && !action.needsCaller && webAuthToken != nil {
            return try await accounts.authenticate(apiToken: apiToken, webAuthToken: nil, container: container, environment: environment)
        }
    }
}

/// The actions of `/auth/1/{container}/{environment}/{action}`.
enum AuthAction: String, CaseIterable, Sendable {
    case signup, verify, signin, code, reset, token, link, password, signout, sessions, account, export, delete

    /// Whether the action is on the caller's own account, which a valid token must name.
    var needsCaller: Bool { [.link, .password, .signout, .sessions, .account, .export, .delete].contains(self) }
}

extension AuthResponse {
    init(_ signedIn: SignedIn) {
        self = .signedIn(
            webAuthToken: signedIn.webAuthToken,
            userRecordName: signedIn.userRecordName,
            isNewUser: signedIn.isNewUser,
            anonymousCredential: signedIn.anonymousCredential
        )
    }

    init(_ requested: CodeRequested) {
        self = .codeSent(expiresAt: requested.expiresAt)
    }
}

extension AuthResponse.Account {
    init(_ summary: AccountSummary) {
        self.init(
            userRecordName: summary.account.identity.userRecordName,
            name: summary.account.identity.name,
            email: summary.account.identity.emailAddress,
            isAnonymous: summary.account.isAnonymous,
            isDiscoverable: summary.account.isDiscoverable,
            providers: summary.providers
        )
    }
}
