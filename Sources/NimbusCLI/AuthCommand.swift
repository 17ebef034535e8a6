//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusEngine
import NimbusModel
import NimbusServer
import NimbusStore

/// `nimbus auth ...`: how people sign in to a container environment.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Configure how people sign in: passwords, email codes, anonymous accounts, providers, callback URLs.",
        subcommands: [Show.self, Password.self, Code.self, Anonymous.self, Provider.self, Callback.self, SMTP.self, HashCost.self]
    )

    /// The container environment every `auth` subcommand names.
    struct Target: ParsableArguments {
        @Option(help: "The container identifier.") var container: String
        @Option(help: "development or production.") var environment: String = "development"
        @Flag(help: "Print one JSON object.") var json = false

        var containerEnvironment: ContainerEnvironment {
            get throws {
                guard let environment = Environment(parsing: environment) else {
                    throw CommandFailure(description: "environment must be development or production")
                }
                return ContainerEnvironment(container: container, environment: environment)
            }
        }
    }

    /// Reads the settings, changes them with `change`, saves them, and prints them.
    static func update(_ data: DataOptions, _ target: Target, _ change: @Sendable @escaping (inout SignInSettings) throws -> Void) async throws {
        let environment = try target.containerEnvironment
        let settings = try await Admin.run(data) { instance in
            var settings = try await instance.signIn.settings(environment)
            try change(&settings)
            try await instance.signIn.saveSettings(settings, for: environment)
            return settings
        }
        print(settings, json: target.json)
    }

    static func print(_ settings: SignInSettings, json: Bool) {
        // A client secret or an SMTP URL (its password) is never printed: only whether one is set.
        var settings = settings
        if settings.smtpURL != nil { settings.smtpURL = "(set)" }
        for index in settings.providers.indices where settings.providers[index].clientSecret != nil {
            settings.providers[index].clientSecret = "(set)"
        }
        if json {
            let data = (try? JSONEncoder.sorted.encode(settings)) ?? Data()
            Swift.print(String(decoding: data, as: UTF8.self))
            return
        }
        Output.print(
            json: false,
            [
                "password": settings.passwordEnabled ? "on (at least \(settings.minimumPasswordLength) characters)" : "off",
                "emailCode": settings.emailCodeEnabled ? "on" : "off",
                "anonymous": settings.anonymousEnabled ? "on" : "off",
                "callbackURLs": settings.callbackURLs.isEmpty ? "(none)" : settings.callbackURLs.joined(separator: " "),
                "smtp": settings.smtpURL == nil ? "the server's" : "its own",
                "providers": settings.providers.isEmpty
                    ? "(none)"
                    : settings.providers.map {
                        "\($0.name) (\($0.kind.rawValue), \($0.issuer), \($0.clientIDs.joined(separator: ","))\($0.clientSecret == nil ? "" : ", secret set"))"
                    }
                    .joined(separator: "; "),
            ]
        )
    }

    /// `nimbus auth show --container ID [--environment E]`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a container environment's sign-in settings.")

        @OptionGroup var data: DataOptions
        @OptionGroup var target: Target

        func run() async throws {
            let environment = try target.containerEnvironment
            let settings = try await Admin.run(data) { instance in try await instance.signIn.settings(environment) }
            AuthCommand.print(settings, json: target.json)
        }
    }

    /// `nimbus auth password --container ID --enable|--disable [--minimum-length N]`.
    struct Password: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn sign-up and sign-in with email and password on or off.")

        @OptionGroup var data: DataOptions
        @OptionGroup var target: Target
        @Flag(inversion: .prefixedEnableDisable, help: "Whether passwords are accepted.") var enable: Bool?
        @Option(help: "The shortest password accepted.") var minimumLength: Int?

        func run() async throws {
            try await AuthCommand.update(data, target) { [enable, minimumLength] settings in
                if let enable { settings.passwordEnabled = enable }
                if let minimumLength { settings.minimumPasswordLength = minimumLength }
            }
        }
    }

    /// `nimbus auth code --container ID --enable|--disable`.
    struct Code: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn sign-in with one-time codes mailed to an address on or off.")

        @OptionGroup var data: DataOptions
        @OptionGroup var target: Target
        @Flag(inversion: .prefixedEnableDisable, help: "Whether email codes are accepted.") var enable: Bool

        func run() async throws {
            try await AuthCommand.update(data, target) { [enable] in $0.emailCodeEnabled = enable }
        }
    }

    /// `nimbus auth anonymous --container ID --enable|--disable`.
    struct Anonymous: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn anonymous accounts (a name only) on or off.")

        @OptionGroup var data: DataOptions
        @OptionGroup var target: Target
        @Flag(inversion: .prefixedEnableDisable, help: "Whether anonymous sign-up is open.") var enable: Bool

        func run() async throws {
            try await AuthCommand.update(data, target) { [enable] in $0.anonymousEnabled = enable }
        }
    }

    /// `nimbus auth provider add|remove ...`.
    struct Provider: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trust an OpenID Connect provider (Sign in with Apple, Google, your own issuer).",
            subcommands: [Add.self, Remove.self]
        )

        /// `nimbus auth provider add --container ID --name N --issuer URL --client-id ID...`.
        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add or replace a provider.",
                discussion: """
                    Sign in with Apple: --name apple --kind apple --issuer https://appleid.apple.com \
                    --client-id <bundle ID> --client-id <Services ID>.
                    Google: --name google --kind google --issuer https://accounts.google.com --client-id <OAuth client ID>.
                    The issuer must be https; plain http is accepted only on loopback, for development.
                    """
            )

            @OptionGroup var data: DataOptions
            @OptionGroup var target: Target
            @Option(help: "The name apps send as `provider`.") var name: String
            @Option(help: "The issuer URL, as ID tokens carry it in `iss`.") var issuer: String
            @Option(name: .customLong("client-id"), help: "An accepted audience (repeat for several).") var clientIDs: [String]
            @Option(help: "apple, google or generic: whose quirks apply.") var kind: String = "generic"
            @Option(
                name: .customLong("client-secret-file"),
                help: "A file holding the client secret of the browser sign-in's code exchange (kept encrypted; never on the command line)."
            )
            var clientSecretFile: String?

            func run() async throws {
                guard let kind = SignInProvider.Kind(rawValue: kind) else {
                    throw CommandFailure(description: "--kind must be apple, google or generic")
                }
                guard !name.isEmpty, name.count <= 64 else { throw CommandFailure(description: "--name must be 1 to 64 characters") }
                var secret: String?
                if let clientSecretFile {
                    guard let data = FileManager.default.contents(atPath: clientSecretFile) else {
                        throw CommandFailure(description: "cannot read \(clientSecretFile)")
                    }
                    secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                let provider = SignInProvider(name: name, kind: kind, issuer: issuer, clientIDs: clientIDs, clientSecret: secret)
                try await AuthCommand.update(data, target) { settings in
                    settings.providers.removeAll { $0.name == provider.name }
                    settings.providers.append(provider)
                }
            }
        }

        /// `nimbus auth provider remove --container ID --name N`.
        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a provider.")

            @OptionGroup var data: DataOptions
            @OptionGroup var target: Target
            @Option(help: "The provider's name.") var name: String

            func run() async throws {
                try await AuthCommand.update(data, target) { [name] settings in
                    guard settings.providers.contains(where: { $0.name == name }) else {
                        throw CommandFailure(description: "no provider named \(name)")
                    }
                    settings.providers.removeAll { $0.name == name }
                }
            }
        }
    }

    /// `nimbus auth callback add|remove URL ...`.
    struct Callback: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register the URLs the browser sign-in flow may send tokens to.",
            subcommands: [Add.self, Remove.self]
        )

        /// `nimbus auth callback add URL --container ID`.
        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Register a callback URL (https; http on loopback in development).")

            @OptionGroup var data: DataOptions
            @OptionGroup var target: Target
            @Argument(help: "The URL, matched exactly (scheme, host, port, path).") var url: String

            func run() async throws {
                try await AuthCommand.update(data, target) { [url] settings in
                    if !settings.callbackURLs.contains(url) { settings.callbackURLs.append(url) }
                }
            }
        }

        /// `nimbus auth callback remove URL --container ID`.
        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Unregister a callback URL.")

            @OptionGroup var data: DataOptions
            @OptionGroup var target: Target
            @Argument(help: "The URL as registered.") var url: String

            func run() async throws {
                try await AuthCommand.update(data, target) { [url] settings in
                    guard settings.callbackURLs.contains(url) else { throw CommandFailure(description: "\(url) is not registered") }
                    settings.callbackURLs.removeAll { $0 == url }
                }
            }
        }
    }
}

extension AuthCommand {
    /// `nimbus auth smtp --container ID (--url-file FILE | --clear)`.
    struct SMTP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "smtp",
            abstract: "Mail a container environment's codes through its own SMTP server.",
            discussion: """
                The file holds one SMTP URL, as NIMBUS_SMTP_URL takes it \
                (smtp://USER:PASSWORD@HOST:587?from=ADDRESS); it is kept encrypted and never printed. \
                --clear goes back to the server's own SMTP server.
                """
        )

        @OptionGroup var data: DataOptions
        @OptionGroup var target: Target
        @Option(help: "A file holding the SMTP URL (it may hold a password: never on the command line).") var urlFile: String?
        @Flag(help: "Use the server's SMTP server again.") var clear = false

        func run() async throws {
            var url: String?
            if let urlFile {
                guard let contents = FileManager.default.contents(atPath: urlFile) else {
                    throw CommandFailure(description: "cannot read \(urlFile)")
                }
                let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                do {
                    _ = try SMTPConfiguration(url: text)
                } catch {
                    // The message names what is wrong and never repeats the URL, which holds the password.
                    throw CommandFailure(description: "the SMTP URL is not usable: \(error.message)")
                }
                url = text
            } else if !clear {
                throw CommandFailure(description: "pass --url-file FILE or --clear")
            }
            try await AuthCommand.update(data, target) { [url] in $0.smtpURL = url }
        }
    }
}

extension JSONEncoder {
    /// An encoder with sorted keys, for output tests and people can compare.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
