//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import NimbusTesting
import Testing

@Suite("SDK: signing in")
struct SignInClientTests {
    static func temporaryStore() -> FileTokenStore {
        FileTokenStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-token-\(UUID().uuidString).json").path)
    }

    @Test("sign up with an email and a password, verify the mailed code, sign in again on another launch")
    func passwordFlow() async throws {
        try await InProcessNimbus.with { nimbus in
            let store = Self.temporaryStore()
            defer { store.clear() }
            let container = nimbus.container(as: nil, tokenStore: store)
            #expect(try await container.accountStatus() == .signedOut)
            try await container.signUp(email: "ann@example.com", password: "ann's long password", name: "Ann")
            let code = try await nimbus.mail.code(to: "ann@example.com")
            let signedUp = try await container.verify(email: "ann@example.com", code: code)
            #expect(signedUp.isNewUser)
            #expect(try await container.accountStatus() == .signedIn(userRecordName: signedUp.userRecordName))
            // The next launch starts signed in from the store, and the file is the owner's only.
            let relaunched = nimbus.container(as: nil, tokenStore: store)
            #expect(try await relaunched.accountStatus() == .signedIn(userRecordName: signedUp.userRecordName))
            let mode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // Signing out ends the session on the server and forgets it here.
            let token = try #require(relaunched.webAuthToken)
            try await relaunched.signOut()
            #expect(store.load() == nil)
            #expect(relaunched.webAuthToken == nil)
            let stale = nimbus.container(as: InProcessNimbus.User(userRecordName: signedUp.userRecordName, webAuthToken: token))
            #expect(try await stale.accountStatus() == .signedOut)
            let again = try await container.signIn(email: "ann@example.com", password: "ann's long password")
            #expect(again.userRecordName == signedUp.userRecordName && !again.isNewUser)
        }
    }

    @Test("a wrong password is an authentication failure that signs nobody in")
    func wrongPassword() async throws {
        try await InProcessNimbus.with { nimbus in
            let container = nimbus.container(as: nil)
            await #expect(throws: NimbusError.self) { try await container.signIn(email: "nobody@example.com", password: "not a password") }
            do {
                _ = try await container.signIn(email: "nobody@example.com", password: "not a password")
            } catch let error as NimbusError {
                #expect(error.code == .authenticationFailed)
            }
            #expect(container.webAuthToken == nil)
        }
    }

    @Test("an anonymous account keeps its credential in the store and signs in with it once the session ended")
    func anonymousFlow() async throws {
        try await InProcessNimbus.with { nimbus in
            let store = Self.temporaryStore()
            defer { store.clear() }
            let container = nimbus.container(as: nil, tokenStore: store)
            let created = try await container.signUpAnonymously(name: "Ö")
            let credential = try #require(created.anonymousCredential)
            #expect(store.load()?.anonymousCredential == credential)
            let sessions = try await container.sessions()
            #expect(sessions.count == 1 && sessions[0].isCurrent)
            try await container.signOutEverywhere()
            let back = try await container.signIn(anonymousCredential: credential)
            #expect(back.userRecordName == created.userRecordName)
            #expect(store.load()?.anonymousCredential == credential)
        }
    }

    @Test("a second device's session is listed and ended from the first")
    func endAnotherSession() async throws {
        try await InProcessNimbus.with { nimbus in
            let phone = nimbus.container(as: nil)
            let created = try await phone.signUpAnonymously(name: "Pat")
            let laptop = nimbus.container(as: nil)
            _ = try await laptop.signIn(anonymousCredential: try #require(created.anonymousCredential))
            let listed = try await laptop.sessions()
            #expect(listed.count == 2)
            let other = try #require(listed.first { !$0.isCurrent })
            try await laptop.endSession(other.id)
            #expect(try await phone.accountStatus() == .signedOut)
            #expect(try await laptop.accountStatus() == .signedIn(userRecordName: created.userRecordName))
        }
    }
}
