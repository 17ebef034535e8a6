//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore

/// The operators' console at `/console`: server-rendered pages and plain forms, with no
/// script. `GET /` leads there.
///
/// Every page but sign-in and set-up needs an operator's session; without one, a page leads
/// to sign-in. Every form post must carry the session's CSRF value, and a read-only operator's
/// posts (but signing out) are refused with `403`. Failures are pages in the console's style,
/// with the status their CloudKit code maps to.
struct ConsoleRoutes: Sendable {
    let services: HTTPServices
    let publicAddress: PublicAddress
    let telemetry: RequestTelemetry
    /// The pages' templates.
    let templates: PageTemplates
    /// The latest log lines by request, if the server keeps them.
    let recentRequests: RecentRequestLog?
    /// Derives the forms' CSRF values from session secrets.
    let csrfKey: SymmetricKey
    /// The server's push settings as the console shows them; `nil` without APNs.
    let pushSettings: [ConsoleSetting]?

    /// Form posts are a few fields.
    static let maximumFormBytes = 16 * 1024

    /// A page's handler: the request, its context, the operator's session and the posted form
    /// (empty for a `GET`).
    typealias Handler = @Sendable (Request, NimbusRequestContext, ConsoleSession, FormBody) async throws -> Response

    func add(to router: some RouterMethods<NimbusRequestContext>) {
        router.route("/", methods: [.get, .head]) { _, _ in Response(status: .found, headers: [.location: "/console"]) }
        router.route("/console/sign-in", methods: [.get, .head, .post]) { request, context in
            request.method == .post ? await signIn(request, context: context) : await signInPage(request)
        }
        router.route("/console/setup/:link", methods: [.get, .head, .post]) { request, context in
            let link = context.parameters.get("link") ?? ""
            return request.method == .post ? await setup(request, context: context, link: link) : await setupPage(request, link: link)
        }
        signedIn(router, "/console/sign-out", post: { _, _, session, _ in try await signOut(session) }, postAllowsReadOnly: true)
        signedIn(router, "/console", get: { _, _, session, _ in try await overview(session) })
        signedIn(router, "/console/containers", post: { _, _, session, form in try await createContainer(session, form) })
        signedIn(
            router,
            "/console/containers/:container/:environment",
            get: { request, context, session, _ in
                try await containerPage(
                    session,
                    try await environment(context),
                    search: Self.query(of: request)["search"],
                    notice: Self.query(of: request)["notice"]
                )
            }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/data",
            get: { request, context, session, _ in try await dataPage(session, try await environment(context), query: Self.query(of: request)) }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/data/records/:record",
            get: { request, context, session, _ in
                try await recordPage(
                    session,
                    try await environment(context),
                    name: Self.recordName(context),
                    notice: Self.query(of: request)["notice"]
                )
            }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/data/records/:record/edit",
            post: { _, context, session, form in try await editRecord(session, try await environment(context), name: Self.recordName(context), form) }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/data/records/:record/delete",
            get: { _, context, session, _ in try await deleteRecordPage(session, try await environment(context), name: Self.recordName(context)) },
            post: { _, context, session, _ in try await deleteRecord(session, try await environment(context), name: Self.recordName(context)) }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/schema",
            get: { request, context, session, _ in
                try await schemaPage(session, try await environment(context), notice: Self.query(of: request)["notice"])
            }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/schema/deploy",
            post: { _, context, session, _ in try await deploySchema(session, try await environment(context)) }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/settings",
            post: { _, context, session, form in try await saveSettings(session, try await environment(context), form) }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/sign-in",
            post: { _, context, session, form in try await saveSignInSettings(session, try await environment(context), form) }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/api-tokens",
            post: { _, context, session, _ in try await createAPIToken(session, try await environment(context)) }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/api-tokens/:token/revoke",
            post: { _, context, session, _ in
                try await revokeAPIToken(session, try await environment(context), hashPrefix: context.parameters.get("token") ?? "")
            }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/server-keys",
            post: { _, context, session, form in try await addServerKey(session, try await environment(context), form) }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/server-keys/:key/revoke",
            post: { _, context, session, _ in
                try await revokeServerKey(session, try await environment(context), keyID: context.parameters.get("key") ?? "")
            }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/users/:user",
            get: { _, context, session, _ in try await userPage(session, try await environment(context), user: context.parameters.get("user") ?? "") }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/users/:user/data",
            get: { request, context, session, _ in
                try await supportDataPage(
                    session,
                    try await environment(context),
                    user: context.parameters.get("user") ?? "",
                    query: Self.query(of: request)
                )
            }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/users/:user/delete",
            get: { _, context, session, _ in
                try await deleteUserPage(session, try await environment(context), user: context.parameters.get("user") ?? "")
            },
            post: { _, context, session, _ in
                try await changeUser(session, try await environment(context), user: context.parameters.get("user") ?? "", action: "delete")
            }
        )
        signedIn(
            router,
            "/console/containers/:container/:environment/users/:user/:action",
            post: { _, context, session, _ in
                try await changeUser(
                    session,
                    try await environment(context),
                    user: context.parameters.get("user") ?? "",
                    action: context.parameters.get("action") ?? ""
                )
            }
        )
        signedIn(
            router,
            "/console/telemetry",
            get: { request, _, session, _ in try await telemetryPage(session, span: Self.query(of: request)["span"]) }
        )
        signedIn(router, "/console/audit", get: { _, _, session, _ in try await auditPage(session) })
        signedIn(router, "/console/requests", get: { request, _, session, _ in requestPage(session, id: Self.query(of: request)["id"]) })
        signedIn(
            router,
            "/console/operators",
            get: { _, _, session, _ in try await operatorsPage(session, newLink: nil, newEmail: nil) },
            post: { _, _, session, form in try await addOperator(session, form) }
        )
    }

    // MARK: - The frame of every page

    /// A path that needs a session: its page (`GET`, `HEAD`) and its form post, checked for
    /// the session's CSRF value and, unless `postAllowsReadOnly`, for an administrator.
    private func signedIn(
        _ router: some RouterMethods<NimbusRequestContext>,
        _ path: RouterPath,
        get: Handler? = nil,
        post: Handler? = nil,
        postAllowsReadOnly: Bool = false
    ) {
        let methods: [HTTPRequest.Method] = (get == nil ? [] : [.get, .head]) + (post == nil ? [] : [.post])
        router.route(path, methods: methods) { request, context in
            var request = request
            do {
                guard let session = try await session(of: request) else {
                    return Response(status: .seeOther, headers: [.location: "/console/sign-in"])
                }
                var form = FormBody("")
                let handler: Handler
                if request.method == .post, let post {
                    let body = try await request.collectBody(upTo: Self.maximumFormBytes)
                    form = FormBody(String(buffer: body))
                    guard session.accepts(form) else {
                        throw NimbusError(.permissionFailure, "the form did not come from this console; open the page again")
                    }
                    guard postAllowsReadOnly || session.canChange else {
                        throw NimbusError(.permissionFailure, "a read-only operator cannot change anything; ask an administrator")
                    }
                    handler = post
                } else if let get {
                    handler = get
                } else {
                    throw MethodRefusal(allowedMethods: methods.map(\.rawValue).joined(separator: ", "))
                }
                do {
                    return try await handler(request, context, session, form)
                } catch let error as NimbusError {
                    return problem(error, session: session)
                }
            } catch let error as NimbusError {
                return problem(error, session: nil)
            } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
                return problem(NimbusError(.limitExceeded, "the form is too large"), session: nil)
            }
            // Anything else goes to the error middleware, which logs it with the request UUID.
        }
    }

    /// A page's query as a form sends it (`+` for a space): the console's searches are forms
    /// with `method="get"`.
    static func query(of request: Request) -> FormBody {
        FormBody(request.uri.query ?? "")
    }

    /// The record a path names (`.../records/{record}`), percent-decoded.
    static func recordName(_ context: NimbusRequestContext) -> String {
        (context.parameters.get("record") ?? "").removingPercentEncoding ?? ""
    }

    /// The session the request's cookie names, if it is live.
    func session(of request: Request) async throws(NimbusError) -> ConsoleSession? {
        guard let secret = request.cookie(ConsoleSession.cookieName), secret.utf8.count == 64, secret.allSatisfy(\.isHexDigit),
            let account = try await services.operators.operatorOfSession(secret)
        else { return nil }
        return ConsoleSession(account: account, secret: secret, csrf: ConsoleSession.csrf(for: secret, key: csrfKey))
    }

    /// The values every page's layout shows: the operator, the navigation and the messages.
    func frame(_ title: String, session: ConsoleSession?, nav: String? = nil, notice: String? = nil, problem: String? = nil) -> [String: Any] {
        var values: [String: Any] = ["title": title]
        if let session {
            values["operator"] = ["email": session.account.email, "role": session.account.role.rawValue, "csrf": session.csrf]
            values["csrf"] = session.csrf
            values["canChange"] = session.canChange
        }
        if let nav { values["nav" + nav] = true }
        if let notice { values["notice"] = notice }
        if let problem { values["problem"] = problem }
        return values
    }

    /// What every page of a container environment shows of it: its name, its path segment and
    /// the environment.
    static func values(of environment: ContainerEnvironment) -> [String: Any] {
        [
            "container": environment.container,
            "containerPath": ConsoleFormat.segment(environment.container),
            "environment": environment.environment.rawValue,
        ]
    }

    /// A failure as a page.
    func problem(_ error: NimbusError, session: ConsoleSession?) -> Response {
        var values = frame("Cannot do that", session: session)
        values["heading"] = error.code == .unknownItem ? "Not found" : "Cannot do that"
        values["reason"] = error.reason
        values["back"] = session == nil ? "/console/sign-in" : "/console"
        return templates.page("problem", status: error.code.httpStatus, values)
    }

    /// Leads back to `path` after a change (post, redirect, get: a reload does not repeat it).
    func redirect(_ path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path])
    }

    var secureCookies: Bool { publicAddress.value.lowercased().hasPrefix("https://") }

    /// The container environment a path names.
    /// The container environment a path names, which must exist: every container page checks it here.
    private func environment(_ context: NimbusRequestContext) async throws(NimbusError) -> ContainerEnvironment {
        let container = (context.parameters.get("container") ?? "").removingPercentEncoding ?? ""
        guard let environment = Environment(parsing: Substring(context.parameters.get("environment") ?? "")) else {
            throw NimbusError(.unknownItem, "no such environment; use development or production")
        }
        let named = ContainerEnvironment(container: container, environment: environment)
        try await services.accounts.requireExists(named)
        return named
    }
}

/// How the console writes values for people.
enum ConsoleFormat {
    /// A time in UTC, to the minute (`2026-11-27 03:10`), or to the second.
    static func time(_ milliseconds: Int64, seconds: Bool = false) -> String {
        let text = Date(timeIntervalSince1970: Double(milliseconds) / 1000).ISO8601Format()
        return text.prefix(10) + " " + text.dropFirst(11).prefix(seconds ? 8 : 5)
    }

    /// A path segment: percent-encoded where a container identifier needs it.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? text
    }
}
