//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusClient
import NimbusEngine
import NimbusModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `nimbus login`: signs the CLI in as a person, and keeps the session in the profile.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in (in the browser, with a mailed code, a password, or as a new anonymous account) and save the session.",
        discussion: """
            With --browser, the container's sign-in page opens in your browser (or its address is
            printed, with --no-open) and sends the new session back to a one-time listener on a
            loopback port; every way the container allows works there, providers included. With --email, a one-time code is mailed to the address and read from standard input
            (a new account is made if the address has none); with --password-stdin too, the
            password is read from standard input instead. With --anonymous NAME, a new anonymous
            account is made. The profile (--profile, NIMBUS_PROFILE or ~/.nimbus/profile.json) then
            holds the server, container, API token and the session's token, readable by you only,
            so the other client subcommands act as you. `nimbus logout` ends the session.
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(help: "The email address to sign in with.") var email: String?
    @Flag(help: "Read the password from standard input instead of mailing a code.") var passwordStdin = false
    @Option(help: "Make a new anonymous account with this name.") var anonymous: String?
    @Flag(help: "Sign in on the container's sign-in page in a browser.") var browser = false
    @Flag(help: "With --browser: print the page's address instead of opening it.") var noOpen = false
    @Option(help: "With --browser: how many seconds to wait for the browser.") var timeout: Int = 300

    func run() async throws {
        let target = try options.signInTarget()
        let container = Container(
            serverURL: target.url,
            identifier: target.container,
            environment: target.environment,
            authentication: .apiToken(target.apiToken, webAuthToken: nil)
        )
        if browser {
            try await signInInBrowser(container, target: target)
            return
        }
        let result: SignInResult
        do {
            if let anonymous {
                result = try await container.signUpAnonymously(name: anonymous)
            } else if let email {
                if passwordStdin {
                    result = try await container.signIn(email: email, password: try Self.readLine("Password: "))
                } else {
                    try await container.requestCode(email: email)
                    result = try await container.verify(email: email, code: try Self.readLine("A code was mailed to \(email). Code: "))
                }
            } else {
                throw CommandFailure(
                    description: "pass --browser, --email ADDRESS (a mailed code, or --password-stdin) or --anonymous NAME"
                )
            }
        } catch let error as NimbusError {
            throw CommandFailure(description: error.reason)
        }
        guard let token = container.webAuthToken else { throw CommandFailure(description: "the server signed nobody in") }
        try keep(token, anonymousCredential: result.anonymousCredential, target: target)
        Output.print(json: options.json, ["userRecordName": result.userRecordName, "profile": options.profilePath])
    }

    /// The loopback flow: the page, the browser, and the token coming back to this process.
    private func signInInBrowser(_ container: Container, target: ClientOptions.SignInTarget) async throws {
        let loopback = LoopbackSignIn()
        let base = target.url.hasSuffix("/") ? String(target.url.dropLast()) : target.url
        let noOpen = self.noOpen
        let token = try await loopback.receive(timeout: .seconds(timeout)) { callback in
            let page =
                "\(base)/signin/\(FormEncoding.component(target.container))/\(target.environment.rawValue)"
                + "?callback=\(FormEncoding.component(callback))&state=\(loopback.state)"
            FileHandle.standardError.write(Data("Sign in on this page: \(page)\n".utf8))
            if !noOpen { Self.openInBrowser(page) }
        }
        let signedIn = Container(
            serverURL: target.url,
            identifier: target.container,
            environment: target.environment,
            authentication: .apiToken(target.apiToken, webAuthToken: token)
        )
        guard case .signedIn(let userRecordName) = try await signedIn.accountStatus() else {
            throw CommandFailure(description: "the token the browser brought back signs nobody in")
        }
        try keep(token, anonymousCredential: nil, target: target)
        Output.print(json: options.json, ["userRecordName": userRecordName, "profile": options.profilePath])
    }

    /// Saves the session in the profile, with where it is valid.
    private func keep(_ token: String, anonymousCredential: String?, target: ClientOptions.SignInTarget) throws {
        var profile = try options.loadProfile(missingIsEmpty: true)
        profile["url"] = target.url
        profile["container"] = target.container
        profile["environment"] = target.environment.rawValue
        profile["apiToken"] = target.apiToken
        profile["webAuthToken"] = token
        if let anonymousCredential { profile["anonymousCredential"] = anonymousCredential }
        try Self.save(profile, to: options.profilePath)
    }

    /// Opens a page in the desktop's browser; where there is none, the printed address is enough.
    private static func openInBrowser(_ page: String) {
        #if os(macOS)
            let opener = "/usr/bin/open"
        #else
            let opener = "/usr/bin/xdg-open"
        #endif
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [page]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }

    /// One line of standard input (the prompt goes to standard error, so output stays clean).
    static func readLine(_ prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
            throw CommandFailure(description: "nothing was entered")
        }
        return line
    }

    /// Writes the profile readable by its owner only, whole, through a temporary file.
    static func save(_ profile: [String: String], to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let data = try JSONSerialization.data(withJSONObject: profile, options: [.sortedKeys, .prettyPrinted])
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw CommandFailure(description: "cannot write \(temporary)") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        guard written == data.count, rename(temporary, path) == 0 else { throw CommandFailure(description: "cannot write \(path)") }
    }
}

/// `nimbus logout`: ends the profile's session on the server and removes it from the profile.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "End the profile's session and forget its token.")

    @OptionGroup var options: ClientOptions

    func run() async throws {
        var profile = try options.loadProfile()
        guard let token = profile["webAuthToken"] else { throw CommandFailure(description: "the profile holds no session") }
        let target = try options.signInTarget()
        let container = Container(
            serverURL: target.url,
            identifier: target.container,
            environment: target.environment,
            authentication: .apiToken(target.apiToken, webAuthToken: token)
        )
        do {
            try await container.signOut()
        } catch let error as NimbusError where error.code == .authenticationFailed {
            // Ended already (it expired, or was ended elsewhere): forgetting it is all that is left.
        } catch let error as NimbusError {
            throw CommandFailure(description: error.reason)
        }
        profile["webAuthToken"] = nil
        try LoginCommand.save(profile, to: options.profilePath)
        Output.print(json: options.json, ["status": "signed out"])
    }
}
