//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NimbusEngine
import NimbusHTTP
import NimbusModel
import NimbusServer
import NimbusStore
import Testing

/// The operators' console over HTTP: who gets in, what a session may post, and what a change
/// does to the API. The pages themselves are driven in Chromium (Tests/Browser/console_flow.py).
@Suite("console: operators, sessions and changes")
struct ConsoleTests {
    static let password = "a console password"

    @Test("the root leads to the console, and the console to sign-in; a post without a session changes nothing")
    func signedOut() async throws {
        try await HTTPFixture.with { f, client in
            let root = try await client.browse(.get, "/")
            #expect(root.status == .found)
            #expect(root.headers[.location] == "/console")
            for path in ["/console", "/console/telemetry", "/console/audit", "/console/containers/\(HTTPFixture.container)/development"] {
                let page = try await client.browse(.get, path)
                #expect(page.status == .seeOther, "\(path)")
                #expect(page.headers[.location] == "/console/sign-in", "\(path)")
            }
            let environment = ContainerEnvironment(container: HTTPFixture.container, environment: .development)
            let before = try await f.instance.accounts.apiTokens(of: environment).count
            let post = try await client.browse(.post, "/console/containers/\(HTTPFixture.container)/development/api-tokens", form: "csrf=x")
            #expect(post.status == .seeOther)
            #expect(try await f.instance.accounts.apiTokens(of: environment).count == before)
        }
    }

    @Test("a set-up link sets the password once and signs in; the session ends after its lifetime and on sign-out")
    func setupAndSessions() async throws {
        try await HTTPFixture.with { f, client in
            let (_, link) = try await f.instance.operators.add(email: "Ops@Example.com", role: .admin)
            let page = try await client.browse(.get, "/console/setup/\(link)")
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("ops@example.com"))
            let form = try FormSecrets(page)

            // A short password is refused and the link still works.
            let short = try await client.browse(.post, "/console/setup/\(link)", form: "csrf=\(form.csrf)&password=short", cookie: form.cookie)
            #expect(short.status == .badRequest)
            #expect(String(buffer: short.body).contains("at least 12 characters"))
            // Without the form's double-submit cookie, nothing is set.
            let forged = try await client.browse(.post, "/console/setup/\(link)", form: "csrf=\(form.csrf)&password=\(Self.password)")
            #expect(forged.status == .forbidden)

            let done = try await client.browse(
                .post,
                "/console/setup/\(link)",
                form: "csrf=\(form.csrf)&password=\(Self.password)",
                cookie: form.cookie
            )
            #expect(done.status == .seeOther)
            let session = try #require(Self.sessionCookie(done))
            #expect(done.headers[.setCookie]?.contains("HttpOnly; SameSite=Strict") == true)
            let console = try await client.browse(.get, "/console", cookie: session)
            #expect(console.status == .ok)
            #expect(String(buffer: console.body).contains(HTTPFixture.container))

            let reused = try await client.browse(.get, "/console/setup/\(link)")
            #expect(reused.status == .notFound)

            // Twelve hours later the session is over.
            f.clock.advance(by: .seconds(Int(OperatorService.sessionLifetime / 1000) + 1))
            #expect(try await client.browse(.get, "/console", cookie: session).status == .seeOther)

            // Signing in again, then out: the cookie no longer opens anything.
            let (_, again) = try await f.instance.operators.signIn(email: "ops@example.com", password: Self.password, clientAddress: nil)
            let cookie = "nimbus_console=\(again)"
            let overview = try await client.browse(.get, "/console", cookie: cookie)
            let csrf = try #require(Self.csrf(in: overview))
            #expect(try await client.browse(.post, "/console/sign-out", form: "csrf=\(csrf)", cookie: cookie).status == .seeOther)
            #expect(try await client.browse(.get, "/console", cookie: cookie).status == .seeOther)
        }
    }

    @Test("sign-in gives the same answer for a wrong password, an unknown address and a disabled operator")
    func signInRefusals() async throws {
        try await HTTPFixture.with { f, _ in
            let (_, link) = try await f.instance.operators.add(email: "ops@example.com", role: .admin)
            _ = try await f.instance.operators.completeSetup(link: link, email: nil, password: Self.password)
            var reasons: [String] = []
            for (email, password) in [("ops@example.com", "wrong password here"), ("nobody@example.com", Self.password)] {
                do {
                    _ = try await f.instance.operators.signIn(email: email, password: password, clientAddress: nil)
                    Issue.record("\(email) signed in with a wrong password")
                } catch let error as NimbusError {
                    #expect(error.code == .authenticationFailed)
                    reasons.append(error.reason)
                }
            }
            try await f.instance.operators.setDisabled(true, email: "ops@example.com", by: nil)
            do {
                _ = try await f.instance.operators.signIn(email: "ops@example.com", password: Self.password, clientAddress: nil)
                Issue.record("a disabled operator signed in")
            } catch let error as NimbusError {
                reasons.append(error.reason)
            }
            #expect(Set(reasons).count == 1, "\(reasons)")
        }
    }

    @Test("posts need the session's CSRF value and an administrator; an API token made in the console works until revoked")
    func changes() async throws {
        try await HTTPFixture.with { f, client in
            let admin = try await Self.session(f, email: "admin@example.com", role: .admin)
            let reader = try await Self.session(f, email: "reader@example.com", role: .readOnly)
            let environment = ContainerEnvironment(container: HTTPFixture.container, environment: .development)
            let tokensPath = "/console/containers/\(HTTPFixture.container)/development/api-tokens"
            let before = try await f.instance.accounts.apiTokens(of: environment).count

            let page = try await client.browse(.get, "/console/containers/\(HTTPFixture.container)/development", cookie: admin)
            let adminCSRF = try #require(Self.csrf(in: page))
            let readerPage = try await client.browse(.get, "/console/containers/\(HTTPFixture.container)/development", cookie: reader)
            let readerCSRF = try #require(Self.csrf(in: readerPage))
            #expect(!String(buffer: readerPage.body).contains("Create an API token"))

            #expect(try await client.browse(.post, tokensPath, form: "", cookie: admin).status == .forbidden)
            #expect(try await client.browse(.post, tokensPath, form: "csrf=\(readerCSRF)", cookie: admin).status == .forbidden)
            #expect(try await client.browse(.post, tokensPath, form: "csrf=\(readerCSRF)", cookie: reader).status == .forbidden)
            #expect(try await f.instance.accounts.apiTokens(of: environment).count == before)

            let made = try await client.browse(.post, tokensPath, form: "csrf=\(adminCSRF)", cookie: admin)
            #expect(made.status == .ok)
            let token = try #require(String(buffer: made.body).firstMatch(of: /id="new-token">([0-9a-f]{64})</)?.1).description
            let current = "/database/1/\(HTTPFixture.container)/development/public/users/current"
            let user = f.alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await client.browse(.get, "\(current)?ckAPIToken=\(token)&ckWebAuthToken=\(user)").status == .ok)

            let revoke = try await client.browse(
                .post,
                "\(tokensPath)/\(Credentials.hash(token).prefix(12))/revoke",
                form: "csrf=\(adminCSRF)",
                cookie: admin
            )
            #expect(revoke.status == .seeOther)
            try await client.browse(.get, "\(current)?ckAPIToken=\(token)&ckWebAuthToken=\(user)")
                .expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            #expect(try await client.browse(.get, "\(current)?ckAPIToken=\(f.apiToken)&ckWebAuthToken=\(user)").status == .ok)

            let audit = try await f.instance.operators.auditLog().map(\.action)
            #expect(audit.prefix(2) == ["api-token.revoke", "api-token.create"])
        }
    }

    @Test("disabling a user in the console ends their sessions at once")
    func disableUser() async throws {
        try await HTTPFixture.with { f, client in
            let admin = try await Self.session(f, email: "admin@example.com", role: .admin)
            let page = try await client.browse(.get, "/console/containers/\(HTTPFixture.container)/development?search=Alice+Liddell", cookie: admin)
            #expect(String(buffer: page.body).contains("Alice Liddell"))
            #expect(!String(buffer: page.body).contains(">Bob<"))
            let csrf = try #require(Self.csrf(in: page))
            let user = f.alice.user.userRecordName
            // Her page counts her data and shows none of it.
            let zone = try await client.send(
                .post,
                f.path("zones/modify", user: f.alice.webAuthToken),
                json: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Diary"}}}]}"#
            )
            #expect(zone.status == .ok)
            let saved = try await client.send(
                .post,
                f.path("records/modify", user: f.alice.webAuthToken),
                json:
                    #"{"zoneID":{"zoneName":"Diary"},"operations":[{"operationType":"create","record":{"recordType":"Entry","fields":{"text":{"value":"a private thought"}}}}]}"#
            )
            #expect(saved.status == .ok)
            let profile = String(
                buffer: try await client.browse(.get, "/console/containers/\(HTTPFixture.container)/development/users/\(user)", cookie: admin).body
            )
            #expect(profile.contains("<dt>Zones</dt><dd>1</dd>") && profile.contains("<dt>Records</dt><dd>1</dd>"), "\(profile)")
            #expect(!profile.contains("Diary") && !profile.contains("a private thought"), "the console showed a user's data")
            let nobody = try await client.browse(.get, "/console/containers/\(HTTPFixture.container)/development/users/_nobody", cookie: admin)
            #expect(nobody.status == .notFound)
            let done = try await client.browse(
                .post,
                "/console/containers/\(HTTPFixture.container)/development/users/\(user)/disable",
                form: "csrf=\(csrf)",
                cookie: admin
            )
            #expect(done.status == .seeOther)
            let token = f.alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let current = "/database/1/\(HTTPFixture.container)/development/public/users/current?ckAPIToken=\(f.apiToken)&ckWebAuthToken=\(token)"
            #expect(try await client.browse(.get, current).status != .ok)
            let unknown = try await client.browse(
                .post,
                "/console/containers/\(HTTPFixture.container)/development/users/_nobody/disable",
                form: "csrf=\(csrf)",
                cookie: admin
            )
            #expect(unknown.status == .notFound)
        }
    }

    @Test("the data browser queries the public database with the filter language and shows a record's typed fields")
    func dataBrowser() async throws {
        try await HTTPFixture.with { f, client in
            let body = #"""
                {"operations":[
                  {"operationType":"create","record":{"recordName":"first","recordType":"Note","fields":{"title":{"value":"Tea"},"count":{"value":3}}}},
                  {"operationType":"create","record":{"recordName":"second","recordType":"Note","fields":{"title":{"value":"Coffee"},"count":{"value":7},
                    "previous":{"value":{"recordName":"first","action":"NONE"}}}}}]}
                """#
            let saved = try await client.send(.post, f.path("records/modify", scope: "public", user: f.alice.webAuthToken), json: body)
            #expect(saved.status == .ok, "\(String(buffer: saved.body))")
            let admin = try await Self.session(f, email: "admin@example.com", role: .readOnly)
            let data = "/console/containers/\(HTTPFixture.container)/development/data"

            let all = String(buffer: try await client.browse(.get, "\(data)?type=Note", cookie: admin).body)
            #expect(all.contains(">first<") && all.contains(">second<"), "\(all)")
            let filtered = try await client.browse(.get, "\(data)?type=Note&filter=count+%3E+5&sort=count", cookie: admin)
            #expect(filtered.status == .ok)
            let text = String(buffer: filtered.body)
            #expect(text.contains(">second<") && !text.contains(">first<"), "\(text)")

            let broken = try await client.browse(.get, "\(data)?type=Note&filter=count", cookie: admin)
            #expect(broken.status == .badRequest)
            #expect(String(buffer: broken.body).contains("field COMPARATOR value"))
            #expect(String(buffer: broken.body).contains("<textarea id=\"filter\" name=\"filter\" rows=\"3\">count</textarea>"))

            let record = String(buffer: try await client.browse(.get, "\(data)/records/second", cookie: admin).body)
            #expect(record.contains("ref → first") && record.contains("href=\"\(data)/records/first\""), "\(record)")
            #expect(record.contains("\"Coffee\"") || record.contains("&quot;Coffee&quot;"), "\(record)")
            #expect(try await client.browse(.get, "\(data)/records/missing", cookie: admin).status == .notFound)
            #expect(try await client.browse(.get, "/console/containers/iCloud.nowhere/development/data", cookie: admin).status == .notFound)
        }
    }

    @Test("a request's log lines are found by the UUID its client got in an error")
    func requestLines() async throws {
        try await HTTPFixture.with(logLevel: .info) { f, client in
            let admin = try await Self.session(f, email: "admin@example.com", role: .readOnly)
            let failed = try await client.send(.get, f.path("zones/list", user: "not-a-token"))
            try failed.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            let uuid = try #require(try failed.json["uuid"] as? String)
            let page = try await client.browse(.get, "/console/requests?id=\(uuid)", cookie: admin)
            #expect(page.status == .ok)
            let text = String(buffer: page.body)
            #expect(text.contains("nimbus.status=401") && text.contains("nimbus.operation=zones/list"), "\(text)")
            #expect(!text.contains("not-a-token"), "a token reached the log")
            let unknown = try await client.browse(.get, "/console/requests?id=00000000-0000-0000-0000-000000000000", cookie: admin)
            #expect(unknown.status == .notFound)
            #expect(String(buffer: unknown.body).contains("No lines of request"))
        }
    }

    @Test("the schema page shows what a deployment would add and deploys it; the settings form sets the quota")
    func schemaAndSettings() async throws {
        try await HTTPFixture.with { f, client in
            let saved = try await client.send(
                .post,
                f.path("records/modify", scope: "public", user: f.alice.webAuthToken),
                json: #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"x"}}}}]}"#
            )
            #expect(saved.status == .ok)
            let admin = try await Self.session(f, email: "admin@example.com", role: .admin)
            let base = "/console/containers/\(HTTPFixture.container)/development"
            let page = try await client.browse(.get, "\(base)/schema", cookie: admin)
            let text = String(buffer: page.body)
            #expect(text.contains("+ record type Note") && text.contains("Deploy to production"), "\(text)")
            let csrf = try #require(Self.csrf(in: page))
            #expect(try await client.browse(.post, "\(base)/schema/deploy", form: "csrf=\(csrf)", cookie: admin).status == .seeOther)
            let production = try await f.instance.schema.schema(of: ContainerEnvironment(container: HTTPFixture.container, environment: .production))
            #expect(production["Note"]?["title"] != nil, "nothing was deployed")
            let after = String(buffer: try await client.browse(.get, "\(base)/schema?notice=deployed", cookie: admin).body)
            #expect(after.contains("Production has everything development has."))

            let bad = try await client.browse(.post, "\(base)/settings", form: "csrf=\(csrf)&userQuotaMB=lots", cookie: admin)
            #expect(bad.status == .badRequest)
            #expect(try await f.instance.accounts.containerSettings(HTTPFixture.container).userQuotaBytes == nil)
            let done = try await client.browse(
                .post,
                "\(base)/settings",
                form: "csrf=\(csrf)&userQuotaMB=5&assetMaxMB=&appURLScheme=tact&fallbackURL=https%3A%2F%2Fexample.com%2Fget%2F",
                cookie: admin
            )
            #expect(done.status == .seeOther)
            let settings = try await f.instance.accounts.containerSettings(HTTPFixture.container)
            #expect(settings.userQuotaBytes == 5_000_000 && settings.appURLScheme == "tact" && settings.fallbackURL == "https://example.com/get/")
            let audit = try await f.instance.operators.auditLog().map(\.action)
            #expect(audit.contains("schema.deploy") && audit.contains("container.configure"))
        }
    }

    @Test("the sign-in settings are shown with their providers, and a provider's secret or the mail password never")
    func signInSettings() async throws {
        try await HTTPFixture.with { f, client in
            let environment = ContainerEnvironment(container: HTTPFixture.container, environment: .development)
            var settings = try await f.instance.signIn.settings(environment)
            settings.providers = [
                SignInProvider(
                    name: "acme",
                    kind: .generic,
                    issuer: "https://id.acme.test",
                    clientIDs: ["web-client"],
                    clientSecret: "client-secret-1234"
                )
            ]
            settings.callbackURLs = ["https://app.acme.test/callback"]
            settings.smtpURL = "smtp://mailer:mail-password-5678@mail.acme.test:587?from=app@acme.test"
            try await f.instance.signIn.saveSettings(settings, for: environment)
            let admin = try await Self.session(f, email: "admin@example.com", role: .readOnly)
            let page = String(buffer: try await client.browse(.get, "/console/containers/\(HTTPFixture.container)/development", cookie: admin).body)
            #expect(
                page.contains("https://id.acme.test") && page.contains("web-client") && page.contains("https://app.acme.test/callback"),
                "\(page)"
            )
            #expect(page.contains("its own SMTP server"))
            #expect(!page.contains("client-secret-1234") && !page.contains("mail-password-5678"), "a secret is on the page")
        }
    }

    @Test("an operator's directory replaces the stylesheet of every page and the console's, sign-in and share templates by name")
    func branding() async throws {
        let pages = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: pages) }
        try "body { color: rebeccapurple; }".write(to: pages.appendingPathComponent("nimbus.css"), atomically: true, encoding: .utf8)
        try "{{<layout}}{{$content}}<h1>Acme operations</h1>{{/content}}{{/layout}}"
            .write(to: pages.appendingPathComponent("sign-in.mustache"), atomically: true, encoding: .utf8)
        // The public pages' frame: every sign-in and share page takes it.
        try #"<!doctype html><title>{{title}}</title><header>Acme</header><main>{{$content}}{{/content}}</main>"#
            .write(to: pages.appendingPathComponent("page.mustache"), atomically: true, encoding: .utf8)
        try await HTTPFixture.with(configure: { $0.pagesDirectory = pages.path }) { _, client in
            let publicSignIn = String(buffer: try await client.browse(.get, "/signin/\(HTTPFixture.container)/development").body)
            #expect(publicSignIn.contains("<header>Acme</header>") && publicSignIn.contains("<h1>Sign in</h1>"), "\(publicSignIn)")
            let share = String(buffer: try await client.browse(.get, "/share/unknownGUID").body)
            #expect(share.contains("<header>Acme</header>") && share.contains("This invitation link is not valid."), "\(share)")
            let style = try await client.browse(.get, "/static/nimbus.css")
            #expect(style.status == .ok)
            #expect(String(buffer: style.body) == "body { color: rebeccapurple; }")
            let signIn = String(buffer: try await client.browse(.get, "/console/sign-in").body)
            #expect(signIn.contains("<h1>Acme operations</h1>") && signIn.contains("/static/nimbus.css"), "\(signIn)")
            // The others are still the bundled ones.
            #expect(String(buffer: try await client.browse(.get, "/console/setup/\(String(repeating: "0", count: 64))").body).contains("Not found"))
        }
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: broken) }
        try "{{#open}} never closed".write(to: broken.appendingPathComponent("layout.mustache"), atomically: true, encoding: .utf8)
        #expect(throws: TemplateFailure.self) { try PageTemplates.check(directory: broken.path) }
    }

    @Test("the telemetry page shows storage by container environment, as quotas count it, counted at most every five minutes")
    func storageByContainer() async throws {
        try await HTTPFixture.with { f, client in
            let admin = try await Self.session(f, email: "admin@example.com", role: .admin)
            let empty = String(buffer: try await client.browse(.get, "/console/telemetry", cookie: admin).body)
            #expect(empty.contains("No data stored yet."))
            let text = String(repeating: "x", count: 200_000)
            let saved = try await client.send(
                .post,
                f.path("records/modify", user: f.alice.webAuthToken),
                json: #"{"operations":[{"operationType":"create","record":{"recordType":"Entry","fields":{"text":{"value":"\#(text)"}}}}]}"#
            )
            #expect(saved.status == .ok)
            // The count is kept for five minutes: counting reads every record.
            #expect(String(buffer: try await client.browse(.get, "/console/telemetry", cookie: admin).body).contains("No data stored yet."))
            f.clock.advance(by: .seconds(Int(OperatorService.storageCountLifetime / 1000) + 1))
            let page = String(buffer: try await client.browse(.get, "/console/telemetry", cookie: admin).body)
            let pattern = /<tr><td>([^<]+)<\/td><td>development<\/td><td class="number">([0-9.]+)<\/td><td class="number">1<\/td><\/tr>/
            let row = try #require(page.firstMatch(of: pattern))
            #expect(String(row.1) == HTTPFixture.container)
            #expect((Double(row.2) ?? 0) >= 0.2, "\(row.2)")
        }
    }

    @Test("an administrator edits a public record and deletes it; a stale page, a bad number or a read-only operator change nothing")
    func editAndDeleteRecord() async throws {
        try await HTTPFixture.with { f, client in
            let saved = try await client.send(
                .post,
                f.path("records/modify", scope: "public", user: f.alice.webAuthToken),
                json: #"{"operations":[{"operationType":"create","record":{"recordName":"tea","recordType":"Note","fields":\#(Self.teaFields)}}]}"#
            )
            #expect(saved.status == .ok)
            let admin = try await Self.session(f, email: "admin@example.com", role: .admin)
            let reader = try await Self.session(f, email: "reader@example.com", role: .readOnly)
            let record = "/console/containers/\(HTTPFixture.container)/development/data/records/tea"
            let page = try await client.browse(.get, record, cookie: admin)
            let csrf = try #require(Self.csrf(in: page))
            let tag = try #require(String(buffer: page.body).firstMatch(of: /name="changeTag" value="([^"]+)"/)).1
            func title() async throws -> String? {
                let lookup = try await client.send(.post, f.path("records/lookup", scope: "public"), json: #"{"records":[{"recordName":"tea"}]}"#)
                let fields = (try lookup.json["records"] as? [[String: Any]])?.first?["fields"] as? [String: [String: Any]]
                return fields?["title"]?["value"] as? String
            }

            let form = "csrf=\(csrf)&changeTag=\(tag)&field.title=Green+tea"
            let badNumber = try await client.browse(.post, record + "/edit", form: form + "&field.count=many", cookie: admin)
            #expect(badNumber.status == .badRequest)
            #expect(try await title() == "Tea")
            let edited = try await client.browse(.post, record + "/edit", form: form + "&field.count=4", cookie: admin)
            #expect(edited.status == .seeOther)
            #expect(try await title() == "Green tea")
            // The page's change tag is stale now: a second edit from it is a conflict.
            let stale = try await client.browse(.post, record + "/edit", form: form, cookie: admin)
            #expect(stale.status == .conflict)

            let readerCSRF = try #require(Self.csrf(in: try await client.browse(.get, record, cookie: reader)))
            #expect(try await client.browse(.post, record + "/delete", form: "csrf=\(readerCSRF)", cookie: reader).status == .forbidden)
            #expect(try await client.browse(.get, record + "/delete", cookie: admin).status == .ok)
            #expect(try await client.browse(.post, record + "/delete", form: "csrf=\(csrf)", cookie: admin).status == .seeOther)
            #expect(try await title() == nil)
            let actions = try await f.instance.operators.auditLog().map(\.action)
            #expect(actions.filter { $0 == "record.edit" }.count == 1 && actions.contains("record.delete"))
        }
    }

    @Test("an administrator changes an environment's ways in, password length and callback URLs; a bad value saves nothing")
    func editSignInSettings() async throws {
        try await HTTPFixture.with { f, client in
            let admin = try await Self.session(f, email: "admin@example.com", role: .admin)
            let page = "/console/containers/\(HTTPFixture.container)/development"
            let csrf = try #require(Self.csrf(in: try await client.browse(.get, page, cookie: admin)))
            let environment = ContainerEnvironment(container: HTTPFixture.container, environment: .development)
            let before = try await f.instance.signIn.settings(environment)
            let callback = "https%3A%2F%2Fapp.example.com%2Fdone"
            for bad in [
                "minimumPasswordLength=3&callbackURLs=", "minimumPasswordLength=ten",
                "minimumPasswordLength=10&callbackURLs=http%3A%2F%2Fapp.example.com%2F",
            ] {
                let refused = try await client.browse(.post, page + "/sign-in", form: "csrf=\(csrf)&password=on&\(bad)", cookie: admin)
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(try await f.instance.signIn.settings(environment) == before, "\(bad)")
            }
            let saved = try await client.browse(
                .post,
                page + "/sign-in",
                form: "csrf=\(csrf)&password=on&emailCode=on&minimumPasswordLength=10&callbackURLs=\(callback)",
                cookie: admin
            )
            #expect(saved.status == .seeOther)
            let after = try await f.instance.signIn.settings(environment)
            #expect(after.passwordEnabled && after.emailCodeEnabled && !after.anonymousEnabled)
            #expect(after.minimumPasswordLength == 10 && after.callbackURLs == ["https://app.example.com/done"])
            #expect(try await f.instance.operators.auditLog().contains { $0.action == "sign-in.configure" })
        }
    }

    @Test("an administrator deletes a user after a confirmation page; a read-only operator cannot; their token then fails")
    func deleteUser() async throws {
        try await HTTPFixture.with { f, client in
            let admin = try await Self.session(f, email: "admin@example.com", role: .admin)
            let reader = try await Self.session(f, email: "reader@example.com", role: .readOnly)
            let user = f.bob.user.userRecordName
            let path = "/console/containers/\(HTTPFixture.container)/development/users/\(user)/delete"
            let confirm = try await client.browse(.get, path, cookie: admin)
            #expect(confirm.status == .ok && String(buffer: confirm.body).contains("Delete Bob?"))
            let readerCSRF = try #require(Self.csrf(in: try await client.browse(.get, "/console", cookie: reader)))
            #expect(try await client.browse(.post, path, form: "csrf=\(readerCSRF)", cookie: reader).status == .forbidden)
            #expect(try await client.send(.get, f.path("users/current", scope: "public", user: f.bob.webAuthToken)).status == .ok)
            let csrf = try #require(Self.csrf(in: confirm))
            #expect(try await client.browse(.post, path, form: "csrf=\(csrf)", cookie: admin).status == .seeOther)
            #expect(try await client.send(.get, f.path("users/current", scope: "public", user: f.bob.webAuthToken)).status != .ok)
            #expect(try await client.browse(.get, path, cookie: admin).status == .notFound)
            #expect(try await f.instance.operators.auditLog().contains { $0.action == "user.delete" && $0.target.hasPrefix(user) })
        }
    }

    static let teaFields = #"{"title":{"value":"Tea"},"count":{"value":3}}"#

    // MARK: - Helpers

    /// A signed-in operator's cookie.
    static func session(_ f: HTTPFixture, email: String, role: OperatorRole) async throws -> String {
        let (_, link) = try await f.instance.operators.add(email: email, role: role)
        let (_, secret) = try await f.instance.operators.completeSetup(link: link, email: nil, password: password)
        return "nimbus_console=\(secret)"
    }

    static func sessionCookie(_ response: TestResponse) -> String? {
        guard let header = response.headers[.setCookie], let match = header.firstMatch(of: /nimbus_console=([0-9a-f]{64})/) else { return nil }
        return "nimbus_console=\(match.1)"
    }

    static func csrf(in response: TestResponse) -> String? {
        String(buffer: response.body).firstMatch(of: /name="csrf" value="([0-9a-f]+)"/).map { String($0.1) }
    }

    /// A pre-session form's double-submit cookie and the value its form carries.
    struct FormSecrets {
        var cookie: String
        var csrf: String

        init(_ page: TestResponse) throws {
            let header = try #require(page.headers[.setCookie])
            let value = try #require(header.firstMatch(of: /nimbus_console_form=([0-9a-f]{32})/)).1
            cookie = "nimbus_console_form=\(value)"
            csrf = try #require(ConsoleTests.csrf(in: page))
            #expect(csrf == String(value))
        }
    }
}

extension TestClientProtocol {
    /// A request with a form body and a cookie, as a browser sends them.
    func browse(_ method: HTTPRequest.Method, _ uri: String, form: String? = nil, cookie: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        if form != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        return try await execute(uri: uri, method: method, headers: headers, body: form.map { ByteBuffer(string: $0) }) { $0 }
    }
}
