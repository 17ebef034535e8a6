//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import Logging
import NIOCore
import NimbusAPNs
import NimbusEngine
import NimbusHTTP
import NimbusServer
import NimbusWeb
import Synchronization

/// `nimbus serve`: runs the server on the embedded SQLite store, or on PostgreSQL with `--database`.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the Nimbus server.")

    @OptionGroup var data: DataOptions

    @Option(help: "The address to listen on (default 127.0.0.1, or NIMBUS_HOSTNAME).")
    var hostname: String?

    @Option(help: "The port to listen on (default 8080, or NIMBUS_PORT).")
    var port: Int?

    @Option(name: .customLong("smtp-url"), help: "The SMTP server for sign-in mail (or NIMBUS_SMTP_URL); default: mail goes to the log.")
    var smtpURL: String?

    @Option(name: .customLong("tls-cert"), help: "A PEM certificate chain to serve HTTPS with (or NIMBUS_TLS_CERT); read again when it changes.")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "The certificate's PEM private key (or NIMBUS_TLS_KEY).")
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            "Bundled web apps to serve under /apps/NAME/, comma-separated (or NIMBUS_APPS).",
            discussion: "Available: \(WebFiles.apps.joined(separator: ", "))."
        )
    )
    var apps: String?

    func run() async throws {
        let environment = Settings.environment
        let logger = try CommandLogging.bootstrap()
        var configuration = ServerConfiguration(
            dataDirectory: data.directory,
            databaseURL: data.databaseURL,
            hostname: hostname ?? environment["NIMBUS_HOSTNAME"] ?? "127.0.0.1",
            port: try port ?? Self.number(environment["NIMBUS_PORT"], "NIMBUS_PORT", in: 0...65535) ?? 8080,
            publicBaseURL: environment["NIMBUS_PUBLIC_URL"],
            fieldEncryptionKey: environment["NIMBUS_ENCRYPTION_KEY"],
            tokenKey: environment["NIMBUS_TOKEN_KEY"],
            maximumBodySize: try Self.number(environment["NIMBUS_MAX_BODY_BYTES"], "NIMBUS_MAX_BODY_BYTES", in: 1 << 20...1 << 30)
                ?? 16 * 1024 * 1024,
            signatureDateWindowSeconds: try Self.number(environment["NIMBUS_SIGNATURE_WINDOW"], "NIMBUS_SIGNATURE_WINDOW", in: 1...86_400) ?? 300,
            tombstoneRetention: try Self.tombstoneRetention(environment["NIMBUS_TOMBSTONE_RETENTION_DAYS"]),
            inboxRetention: try Self.inboxRetention(environment["NIMBUS_INBOX_RETENTION_DAYS"]),
            notificationDelay: try Self.notificationDelay(environment["NIMBUS_NOTIFICATION_DELAY_MS"]),
            apns: try Self.apns(environment)
        )
        configuration.maximumConnections = try Self.number(environment["NIMBUS_MAX_CONNECTIONS"], "NIMBUS_MAX_CONNECTIONS", in: 16...1_000_000)
        // log2 of scrypt's N for new password hashes; `nimbus auth hash-cost` measures each step.
        if let cost = try Self.number(environment["NIMBUS_PASSWORD_HASH_COST"], "NIMBUS_PASSWORD_HASH_COST", in: 10...22) {
            configuration.passwordHashing = .init(logRounds: cost)
        }
        if let seconds = try Self.number(environment["NIMBUS_FIRST_BYTE_TIMEOUT"], "NIMBUS_FIRST_BYTE_TIMEOUT", in: 1...3600) {
            configuration.firstByteTimeout = .seconds(seconds)
        }
        if let seconds = try Self.number(environment["NIMBUS_HEADER_TIMEOUT"], "NIMBUS_HEADER_TIMEOUT", in: 1...3600) {
            configuration.requestHeadTimeout = .seconds(seconds)
        }
        configuration.smtp = try Self.smtp(url: smtpURL ?? environment["NIMBUS_SMTP_URL"], environment)
        configuration.assets = try Self.assetLimits(environment)
        configuration.assetStore = try Self.s3(environment)
        configuration.apps = try Self.apps(apps ?? environment["NIMBUS_APPS"], environment)
        configuration.accessLog = try Self.switchValue(environment["NIMBUS_ACCESS_LOG"], "NIMBUS_ACCESS_LOG") ?? true
        switch (tlsCertificate ?? environment["NIMBUS_TLS_CERT"], tlsKey ?? environment["NIMBUS_TLS_KEY"]) {
        case (nil, nil): break
        case (let certificate?, let key?):
            do {
                configuration.tls = try TLSCertificates(.init(certificate: certificate, key: key), logger: logger)
            } catch {
                throw ValidationError("\(error)")
            }
        default: throw ValidationError("--tls-cert and --tls-key go together (or NIMBUS_TLS_CERT and NIMBUS_TLS_KEY)")
        }
        if let pages = environment["NIMBUS_PAGES_DIR"] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: pages, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("NIMBUS_PAGES_DIR \(pages) is not a directory")
            }
            try PageTemplates.check(directory: pages)
            configuration.pagesDirectory = pages
        }
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
        if ["0.0.0.0", "::", "[::]"].contains(configuration.hostname) && configuration.publicBaseURL == nil {
            logger.warning(
                "listening on every address without NIMBUS_PUBLIC_URL: links the server makes (sign-in, share, console set-up) name \(configuration.hostname); set NIMBUS_PUBLIC_URL to the address people reach"
            )
        }
        // Read and checked before anything opens: a bad file stops the start at once.
        let signInConfig = try environment["NIMBUS_SIGN_IN_CONFIG"].map { try SignInConfigFile(path: $0) }
        let instance = try await NimbusInstance.open(configuration, logger: logger)
        let location = configuration.databaseURL == nil ? "data directory \(configuration.dataDirectory)" : "database"
        let quickstart = QuickstartNotice(location: location)
        // Made once the store runs, before the server listens; printed once it listens, so the
        // URL names the port it got (with `--port 0`), and printed anyway if it never listens
        // (a port in use): the tokens are shown only once.
        do {
            try await NimbusServer.run(
                instance,
                logger: logger,
                beforeServing: {
                    try await instance.checkAssetStore()
                    quickstart.set(try await NimbusServer.makeQuickstart(instance))
                    try await signInConfig?.apply(to: instance)
                },
                onReady: { url in quickstart.print(url: url, serving: true) }
            )
        } catch {
            quickstart.print(url: NimbusServer.configuredURL(configuration), serving: false)
            if let failure = error as? IOError, failure.errnoCode == EADDRINUSE {
                throw CommandFailure(
                    description: "port \(configuration.port) on \(configuration.hostname) is in use by another program: "
                        + "choose another with --port (or NIMBUS_PORT), or stop that program"
                )
            }
            throw error
        }
    }

    /// `--apps chat` (or `NIMBUS_APPS`): the bundled apps to serve, for the container
    /// `NIMBUS_APPS_CONTAINER` names, with its API token `NIMBUS_APPS_API_TOKEN` (and
    /// `NIMBUS_APPS_ENVIRONMENT`, `development` by default). A name no app has, or an app
    /// without its container, stops the start.
    static func apps(_ text: String?, _ environment: SettingsValues) throws -> [WebApp] {
        let names = Set((text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        guard !names.isEmpty else { return [] }
        for name in names where !WebFiles.hasApp(name) {
            throw ValidationError("no bundled app '\(name)'; the apps are: \(WebFiles.apps.joined(separator: ", "))")
        }
        guard let container = environment["NIMBUS_APPS_CONTAINER"], !container.isEmpty,
            let apiToken = environment["NIMBUS_APPS_API_TOKEN"], apiToken.utf8.count == 64,
            apiToken.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else {
            throw ValidationError(
                "--apps needs the container the apps use: NIMBUS_APPS_CONTAINER=ID and NIMBUS_APPS_API_TOKEN=TOKEN "
                    + "(64 hex digits, from nimbus container create)"
            )
        }
        let environmentName = environment["NIMBUS_APPS_ENVIRONMENT"] ?? "development"
        guard environmentName == "development" || environmentName == "production" else {
            throw ValidationError("NIMBUS_APPS_ENVIRONMENT must be development or production")
        }
        return names.sorted().map { WebApp(name: $0, containerIdentifier: container, environment: environmentName, apiToken: apiToken) }
    }

    /// `on` or `off` (also `true`/`false`, `1`/`0`) from an environment variable, or `nil` when
    /// it is not set or empty.
    static func switchValue(_ text: String?, _ name: String) throws -> Bool? {
        guard let text = text?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty else { return nil }
        switch text {
        case "on", "true", "1": return true
        case "off", "false", "0": return false
        default: throw ValidationError("\(name) must be on or off, not \(text)")
        }
    }

    /// A whole number from an environment variable, or `nil` when it is not set.
    static func number(_ text: String?, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        // Empty counts as unset, as a compose file's `${PORT}` gives when PORT is not set.
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ValidationError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return value
    }

    /// `NIMBUS_TOMBSTONE_RETENTION_DAYS`: days to keep tombstones (default 30); 0 keeps them forever.
    static func tombstoneRetention(_ text: String?) throws -> Duration? {
        guard let text else { return .seconds(30 * 24 * 3600) }
        guard let days = Int(text), (0...36_500).contains(days) else {
            throw ValidationError("NIMBUS_TOMBSTONE_RETENTION_DAYS must be a whole number of days up to 36500, 0 to keep tombstones forever")
        }
        return days == 0 ? nil : .seconds(days * 24 * 3600)
    }

    /// `NIMBUS_INBOX_RETENTION_DAYS`: days a notification stays in its recipient's inbox (default 7).
    static func inboxRetention(_ text: String?) throws -> Duration {
        guard let text else { return .seconds(7 * 24 * 3600) }
        guard let days = Int(text), (1...365).contains(days) else {
            throw ValidationError("NIMBUS_INBOX_RETENTION_DAYS must be a whole number of days from 1 to 365")
        }
        return .seconds(days * 24 * 3600)
    }

    /// APNs, from `NIMBUS_APNS_KEY_FILE` (the team's `.p8` key), `NIMBUS_APNS_KEY_ID`,
    /// `NIMBUS_APNS_TEAM_ID`, and optionally `NIMBUS_APNS_TOPIC` (default: the container ID
    /// without `iCloud.`), `NIMBUS_APNS_DEVELOPMENT_URL`, `NIMBUS_APNS_PRODUCTION_URL` and
    /// `NIMBUS_APNS_CA_FILE` (extra trusted certificates, PEM). No key file: no APNs.
    static func apns(_ environment: SettingsValues) throws -> APNsConfiguration? {
        guard let keyFile = environment["NIMBUS_APNS_KEY_FILE"] else {
            if environment["NIMBUS_APNS_KEY_ID"] != nil || environment["NIMBUS_APNS_TEAM_ID"] != nil {
                throw ValidationError("NIMBUS_APNS_KEY_ID and NIMBUS_APNS_TEAM_ID need NIMBUS_APNS_KEY_FILE, the .p8 key")
            }
            return nil
        }
        guard let keyID = environment["NIMBUS_APNS_KEY_ID"], let teamID = environment["NIMBUS_APNS_TEAM_ID"] else {
            throw ValidationError("NIMBUS_APNS_KEY_FILE needs NIMBUS_APNS_KEY_ID and NIMBUS_APNS_TEAM_ID")
        }
        func read(_ path: String, _ name: String) throws -> String {
            guard let contents = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(name) \(path)") }
            return String(decoding: contents, as: UTF8.self)
        }
        var configuration = APNsConfiguration(
            keyPEM: try read(keyFile, "NIMBUS_APNS_KEY_FILE"),
            keyID: keyID,
            teamID: teamID,
            topic: environment["NIMBUS_APNS_TOPIC"],
            additionalTrustRootsPEM: try environment["NIMBUS_APNS_CA_FILE"].map { try read($0, "NIMBUS_APNS_CA_FILE") }
        )
        if let url = environment["NIMBUS_APNS_DEVELOPMENT_URL"] { configuration.developmentURL = url }
        if let url = environment["NIMBUS_APNS_PRODUCTION_URL"] { configuration.productionURL = url }
        return configuration
    }

    /// `NIMBUS_NOTIFICATION_DELAY_MS`: how long to gather writes before dispatching (default 0).
    static func notificationDelay(_ text: String?) throws -> Duration {
        guard let text else { return .zero }
        guard let milliseconds = Int(text), (0...60_000).contains(milliseconds) else {
            throw ValidationError("NIMBUS_NOTIFICATION_DELAY_MS must be a whole number of milliseconds from 0 to 60000")
        }
        return .milliseconds(milliseconds)
    }
}

/// The lines a first start prints for the README's quick start, printed once.
private final class QuickstartNotice: Sendable {
    private struct State {
        var quickstart: NimbusServer.Quickstart?
        var isPrinted = false
    }
    private let location: String
    private let state = Mutex(State())

    init(location: String) {
        self.location = location
    }

    func set(_ quickstart: NimbusServer.Quickstart?) {
        state.withLock { $0.quickstart = quickstart }
    }

    /// Prints the first start's tokens, or on a later start (when `serving`) where to get new ones.
    func print(url: String, serving: Bool) {
        let (quickstart, isFirst) = state.withLock { state -> (NimbusServer.Quickstart?, Bool) in
            defer { state.isPrinted = true }
            return (state.quickstart, !state.isPrinted)
        }
        guard isFirst else { return }
        guard let quickstart else {
            guard serving else { return }
            // A later start: the tokens were shown on the first one only.
            FileHandle.standardOutput.write(
                Data(
                    """
                    Serving the existing \(location) at \(url). Tokens are shown only when made; a lost one is replaced with
                    `nimbus user token USER --container ID` (a web auth token) or in the console at \(url)/console (an API token).

                    """.utf8
                )
            )
            return
        }
        // Written straight to the file descriptor: stdout is a pipe under scripts and tests, and
        // buffered output would not arrive while the server runs.
        FileHandle.standardOutput.write(
            Data(
                """
                New \(location): created a development container and a user.
                The tokens are shown only now (the server stores their hashes). Paste these lines into a shell:

                export NIMBUS_URL=\(url)
                export NIMBUS_CONTAINER=\(quickstart.container)
                export NIMBUS_API_TOKEN=\(quickstart.apiToken)
                export NIMBUS_WEB_AUTH_TOKEN='\(quickstart.webAuthToken)'

                """.utf8
            )
        )
        if let link = quickstart.consoleSetupLink {
            FileHandle.standardOutput.write(
                Data(
                    """
                    The console is at \(url)/console. Create its first administrator within 24 hours at
                    \(url)/console/setup/\(link)
                    (or any time with: nimbus operator add EMAIL)

                    """.utf8
                )
            )
        }
    }
}
