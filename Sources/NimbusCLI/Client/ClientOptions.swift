//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Crypto
import Foundation
import NimbusClient
import NimbusModel

/// Where and as whom the client subcommands connect: flags, then environment variables, then a
/// profile file, in that order of precedence. Credentials are not pieced together from a lower
/// level: the first level naming a key ID or an API token decides, and only it or a higher
/// level supplies the key file or the web auth token.
///
/// The profile is a JSON object with any of the keys `url`, `container`, `environment`,
/// `scope`, `apiToken`, `webAuthToken`, `keyID`, `keyFile`; it is read from `--profile`,
/// `NIMBUS_PROFILE`, or `~/.nimbus/profile.json` when that exists.
struct ClientOptions: ParsableArguments {
    @Option(help: "The server URL (NIMBUS_URL).") var url: String?
    @Option(help: "The container identifier (NIMBUS_CONTAINER).") var container: String?
    @Option(help: "development or production (NIMBUS_ENVIRONMENT; default development).") var environment: String?
    @Option(help: "public, private or shared (NIMBUS_SCOPE; default private, or public with a server key).") var scope: String?
    @Option(help: "The container's API token (NIMBUS_API_TOKEN).") var apiToken: String?
    @Option(help: "A signed-in user's web auth token (NIMBUS_WEB_AUTH_TOKEN).") var webAuthToken: String?
    @Option(help: "A server-to-server key ID (NIMBUS_KEY_ID); signs requests with --key-file.") var keyID: String?
    @Option(help: "The PEM file of the server-to-server private key (NIMBUS_KEY_FILE).") var keyFile: String?
    @Option(help: "A JSON profile with defaults for these options (NIMBUS_PROFILE).") var profile: String?
    @Option(help: "The owner of the zones named (their user record name), for zones shared with you.") var owner: String?
    @Flag(help: "Print JSON instead of text.") var json = false

    /// The value of a setting: its flag, its environment variable, or its profile key.
    private func setting(_ flag: String?, _ variable: String, _ key: String, profile: [String: String]) -> String? {
        if let flag, !flag.isEmpty { return flag }
        if let value = Settings.environment[variable] { return value }
        return profile[key]
    }

    /// The server's URL, checked: `http://` or `https://` and a host, so a mistyped one is
    /// named here rather than failing as a network error.
    private func serverURL(profile: [String: String]) throws -> String? {
        guard let url = setting(url, "NIMBUS_URL", "url", profile: profile) else { return nil }
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
            parts.host?.isEmpty == false
        else {
            let hint = url.contains("://") ? "" : "; did you mean http://\(url)?"
            throw CommandFailure(description: "the server URL \(url) is not an http:// or https:// URL with a host\(hint)")
        }
        return url
    }

    /// Where the profile is read from (and `nimbus login` writes it).
    var profilePath: String {
        profile ?? Settings.environment["NIMBUS_PROFILE"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".nimbus/profile.json").path
    }

    /// Where a sign-in goes.
    typealias SignInTarget = (url: String, container: String, environment: Environment, apiToken: String)

    /// What signing in needs: the server, the container, its environment and API token (never a
    /// user's token: signing in makes one).
    func signInTarget() throws -> SignInTarget {
        // Signing in makes the profile: one that does not exist yet is an empty one.
        let profile = try loadProfile(missingIsEmpty: true)
        guard let url = try serverURL(profile: profile) else {
            throw CommandFailure(description: "no server URL: pass --url or set NIMBUS_URL")
        }
        guard let identifier = setting(container, "NIMBUS_CONTAINER", "container", profile: profile) else {
            throw CommandFailure(description: "no container: pass --container or set NIMBUS_CONTAINER")
        }
        let environmentName = setting(environment, "NIMBUS_ENVIRONMENT", "environment", profile: profile) ?? "development"
        guard let environment = Environment(parsing: environmentName) else {
            throw CommandFailure(description: "environment must be development or production, not \(environmentName)")
        }
        guard let apiToken = setting(apiToken, "NIMBUS_API_TOKEN", "apiToken", profile: profile) else {
            throw CommandFailure(description: "no API token: pass --api-token or set NIMBUS_API_TOKEN")
        }
        return (url, identifier, environment, apiToken)
    }

    func loadProfile(missingIsEmpty: Bool = false) throws -> [String: String] {
        let explicit = profile ?? Settings.environment["NIMBUS_PROFILE"]
        let path = profilePath
        guard let data = FileManager.default.contents(atPath: path) else {
            if explicit != nil && !(missingIsEmpty && !FileManager.default.fileExists(atPath: path)) {
                throw CommandFailure(description: "cannot read the profile \(path)")
            }
            return [:]
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: String] else {
            throw CommandFailure(description: "the profile \(path) must be a JSON object of strings")
        }
        return object
    }

    /// The database the options name, with its container.
    func database() throws -> Database {
        let profile = try loadProfile()
        guard let url = try serverURL(profile: profile) else {
            throw CommandFailure(description: "no server URL: pass --url or set NIMBUS_URL")
        }
        guard let identifier = setting(container, "NIMBUS_CONTAINER", "container", profile: profile) else {
            throw CommandFailure(description: "no container: pass --container or set NIMBUS_CONTAINER")
        }
        let environmentName = setting(environment, "NIMBUS_ENVIRONMENT", "environment", profile: profile) ?? "development"
        guard let environment = Environment(parsing: environmentName) else {
            throw CommandFailure(description: "environment must be development or production, not \(environmentName)")
        }
        // The credentials' mode comes from the first level that names a key ID or an API token
        // (flags, then the environment, then the profile), and their companion (the key file,
        // the web auth token) from that level or a higher one: a profile never completes the
        // credentials the environment or the flags name, so a user's token is never sent
        // with another API token or to a server the profile does not name.
        let levels = credentialLevels(profile: profile)
        guard let chosen = levels.firstIndex(where: { $0.keyID != nil || $0.apiToken != nil }) else {
            throw CommandFailure(description: "no credentials: pass --api-token (and --web-auth-token) or --key-id and --key-file")
        }
        let usable = levels[...chosen]
        let useKey = levels[chosen].keyID != nil
        let authentication: Authentication
        if useKey, let keyID = levels[chosen].keyID {
            guard let keyFile = usable.lazy.compactMap(\.keyFile).first, let pem = try? String(contentsOfFile: keyFile, encoding: .utf8)
            else {
                throw CommandFailure(description: "--key-id needs --key-file (or NIMBUS_KEY_FILE) naming a readable PEM file")
            }
            do {
                authentication = .serverToServer(keyID: keyID, privateKey: try P256.Signing.PrivateKey(pemRepresentation: pem))
            } catch {
                throw CommandFailure(description: "the key file is not a P-256 private key in PEM: \(error)")
            }
        } else {
            let apiToken = levels[chosen].apiToken ?? ""
            authentication = .apiToken(apiToken, webAuthToken: usable.lazy.compactMap(\.webAuthToken).first)
        }
        // A server-to-server key acts on the public database.
        let scopeName = setting(scope, "NIMBUS_SCOPE", "scope", profile: profile) ?? (useKey ? "public" : "private")
        guard let scope = DatabaseScope(parsing: scopeName) else {
            throw CommandFailure(description: "scope must be public, private or shared, not \(scopeName)")
        }
        let container = Container(serverURL: url, identifier: identifier, environment: environment, authentication: authentication)
        TokenRotationNotice.watch(container, original: container.webAuthToken)
        let database = container.database(scope)
        if scope == .shared && owner == nil { SharedZoneHint.watch(database) }
        return database
    }

    /// One level of credential settings: the flags, the environment or the profile.
    private struct CredentialLevel {
        var keyID: String?
        var keyFile: String?
        var apiToken: String?
        var webAuthToken: String?
    }

    /// The credential settings of each level, flags first; empty values count as absent.
    private func credentialLevels(profile: [String: String]) -> [CredentialLevel] {
        let environment = Settings.environment
        func named(_ value: String?) -> String? { (value ?? "").isEmpty ? nil : value }
        return [
            CredentialLevel(keyID: named(keyID), keyFile: named(keyFile), apiToken: named(apiToken), webAuthToken: named(webAuthToken)),
            CredentialLevel(
                keyID: named(environment["NIMBUS_KEY_ID"]),
                keyFile: named(environment["NIMBUS_KEY_FILE"]),
                apiToken: named(environment["NIMBUS_API_TOKEN"]),
                webAuthToken: named(environment["NIMBUS_WEB_AUTH_TOKEN"])
            ),
            CredentialLevel(
                keyID: named(profile["keyID"]),
                keyFile: named(profile["keyFile"]),
                apiToken: named(profile["apiToken"]),
                webAuthToken: named(profile["webAuthToken"])
            ),
        ]
    }

    /// A zone of the database: with `--owner`, another user's zone (in the shared database).
    func zoneID(_ name: String) -> ZoneID {
        if owner == nil { SharedZoneHint.note(name) }
        return ZoneID(zoneName: name, ownerRecordName: owner ?? "")
    }
}
