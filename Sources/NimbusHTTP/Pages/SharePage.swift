//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore

/// The page behind a share's URL, `{base}/share/{shortGUID}`, for people who open an
/// invitation in a browser.
///
/// `GET` shows what the share is to the visitor, with `og:` tags for link previews, a link into
/// the container's app (its URL scheme, or the fallback URL, with the short GUID appended) and,
/// for a signed-in visitor who may join, an accept button. `POST` (the button) accepts.
/// A visitor is signed in by a `ckWebAuthToken` query parameter (form field for `POST`), as
/// CloudKit JS passes tokens to redirect targets.
///
/// Decision: the URL is a capability. Anyone holding it learns which app it opens; only those
/// who may see the share (participants, or anyone for a public share) see its title and owner.
struct SharePage {
    let database: DatabaseService
    let accounts: AccountService
    /// Where the server is reached, for the link a preview carries.
    let publicAddress: PublicAddress

    /// The longest short GUID a link carries.
    static let maximumShortGUIDLength = 64

    func respond(to request: Request, shortGUID: String) async -> Response {
        do {
            switch request.method {
            case .get, .head:
                return try await show(shortGUID, token: request.uri.queryParameters["ckWebAuthToken"].map(String.init))
            case .post:
                let form = try await request.body.collect(upTo: 16 * 1024)
                let token = FormBody(String(buffer: form))["ckWebAuthToken"]
                return try await accept(shortGUID, token: token)
            default:
                return Self.page(status: .methodNotAllowed, title: "Not allowed", body: "<p>Open this link in a browser.</p>")
            }
        } catch {
            return Self.page(status: .serviceUnavailable, title: "Try again", body: "<p>The server could not answer just now; try again.</p>")
        }
    }

    // MARK: - Private

    private static var notFound: Response {
        page(status: .notFound, title: "Invitation not found", body: "<p>This invitation link is not valid.</p>")
    }

    private func show(_ shortGUID: String, token: String?) async throws -> Response {
        guard let location = try await database.shareLocation(shortGUID: shortGUID) else {
            return Self.notFound
        }
        let container = location.container
        let reader = try await accounts.signedInUser(webAuthToken: token, container: container)
        guard let preview = try await database.sharePreview(shortGUID: shortGUID, reader: reader) else {
            return Self.notFound
        }
        let settings = try await accounts.containerSettings(container)
        var body = ""
        if preview.isVisible {
            let title = HTML.escape(preview.title ?? "A shared item")
            body += "<h1>\(title)</h1>"
            if let owner = preview.ownerName { body += "<p>Shared by \(HTML.escape(owner)).</p>" }
            if preview.isOwner {
                body += "<p>You own this. People you invite open this link to join.</p>"
            } else if preview.status == .accepted {
                body += "<p>You have joined.</p>"
            } else if let token, preview.mayAccept {
                body += """
                    <form method="post" action="/share/\(HTML.escape(shortGUID))">\
                    <input type="hidden" name="ckWebAuthToken" value="\(HTML.escape(token))">\
                    <button type="submit">Accept</button></form>
                    """
            } else if reader == nil {
                body += signInLink(shortGUID, location: location, text: "Sign in or create an account to join")
            }
        } else {
            body += "<h1>You have been invited</h1>"
            body +=
                reader == nil
                ? signInLink(shortGUID, location: location, text: "Sign in or create an account with the address you were invited at")
                : "<p>This invitation is not for this account.</p>"
        }
        body += appLinks(shortGUID, settings)
        return Self.page(
            status: .ok,
            title: preview.isVisible ? preview.title ?? "A shared item" : "You have been invited",
            body: body,
            preview: OpenGraph(
                title: preview.isVisible ? preview.title ?? "A shared item" : "You have been invited",
                description: preview.isVisible
                    ? "\(preview.ownerName ?? "Someone") shared this with you." : "Open the invitation to see what was shared with you.",
                url: "\(publicAddress.value)/share/\(shortGUID)"
            )
        )
    }

    private func accept(_ shortGUID: String, token: String?) async throws -> Response {
        guard let location = try await database.shareLocation(shortGUID: shortGUID),
            let reader = try await accounts.signedInUser(webAuthToken: token, container: location.container)
        else {
            return Self.page(status: .forbidden, title: "Sign in first", body: "<p>Sign in with the invited account, then open the link again.</p>")
        }
        let access = DatabaseAccess(
            caller: Caller(container: location.container, environment: location.environment, kind: .user, userRecordName: reader),
            scope: .shared
        )
        let settings = try await accounts.containerSettings(location.container)
        let results = try await database.acceptShares([ShareLookup(shortGUID: shortGUID)], access: access)
        switch results.first {
        case .success(let metadata)?:
            let title = metadata.share.shareTitle
            return Self.page(
                status: .ok,
                title: "Joined",
                body: "<h1>You joined \(HTML.escape(title ?? "the shared item"))</h1>" + appLinks(shortGUID, settings)
            )
        case .failure(let error)?:
            return Self.page(status: .forbidden, title: "Cannot join", body: "<p>\(HTML.escape(error.reason))</p>")
        case nil:
            return Self.page(status: .forbidden, title: "Cannot join", body: "<p>This invitation cannot be accepted.</p>")
        }
    }

    /// A link to the sign-in page that comes back here signed in: a person without an account
    /// signs up and accepts in one flow.
    private func signInLink(_ shortGUID: String, location: ContainerEnvironment, text: String) -> String {
        let page = "/signin/\(location.container)/\(location.environment.rawValue)?return=" + FormEncoding.component("/share/\(shortGUID)")
        return #"<p><a class="signin" href="\#(HTML.escape(page))">\#(HTML.escape(text))</a></p>"#
    }

    private func appLinks(_ shortGUID: String, _ settings: ContainerSettings) -> String {
        var links: [String] = []
        if let scheme = settings.appURLScheme {
            links.append(#"<a class="open" href="\#(HTML.escape("\(scheme)://share/\(shortGUID)"))">Open in the app</a>"#)
        }
        if let fallback = settings.fallbackURL {
            links.append(#"<a class="fallback" href="\#(HTML.escape(fallback + shortGUID))">Get the app</a>"#)
        }
        return links.isEmpty ? "" : "<p>" + links.joined(separator: " · ") + "</p>"
    }

    /// The page's URL may carry a web auth token: it must not leak to sites it links to.
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    struct OpenGraph {
        var title: String
        var description: String
        var url: String
    }

    static func page(status: HTTPResponse.Status, title: String, body: String, preview: OpenGraph? = nil) -> Response {
        var head = ""
        if let preview {
            head += #"<meta property="og:type" content="website">"#
            head += #"<meta property="og:title" content="\#(HTML.escape(preview.title))">"#
            head += #"<meta property="og:description" content="\#(HTML.escape(preview.description))">"#
            head += #"<meta property="og:url" content="\#(HTML.escape(preview.url))">"#
        }
        let html = PageChrome.document(title: title, head: head, body: body)
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", Self.referrerPolicy: "no-referrer",
                SignInPage.contentSecurityPolicy:
                    "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }
}

/// Escaping text for HTML bodies and attribute values.
enum HTML {
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
