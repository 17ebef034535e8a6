//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// Placeholder participants: an invitation to an address with no account waits until someone
/// proves they control that address.
@Suite("sharing: proving an address to accept a placeholder invitation")
struct ContactVerificationTests {
    /// Alice shares chat `c1` with an address nobody has yet.
    private func invite(_ f: EngineFixture, _ address: String) async throws -> String {
        try await f.makeZone("Chats", for: f.alice)
        let results = try await f.modify(
            [
                RecordOperation(kind: .create, recordName: "c1", recordType: "Chat"),
                RecordOperation(
                    kind: .create,
                    recordName: "share-c1",
                    recordType: Share.recordType,
                    share: ShareChange(rootRecordName: "c1", participants: [ParticipantInput(lookupInfo: .emailAddress(address))])
                ),
            ],
            zone: "Chats"
        )
        return try #require(results.last?.record?.shareDetails?.share.shortGUID)
    }

    private func caller(_ f: EngineFixture, _ user: String) -> Caller {
        Caller(container: EngineFixture.container, environment: .development, kind: .user, userRecordName: user)
    }

    @Test("the development mailer logs a code; the right code links the address and the invitation becomes acceptable")
    func proveAndAccept() async throws {
        try await EngineFixture.with { f in
            let guid = try await invite(f, "bob@work.example")
            // Bob's account has no address: the invitation is not his yet.
            let before = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(f.bob))
            #expect((try? before[0].get()) == nil)

            let start = try await f.accounts.startVerification(of: .emailAddress(" Bob@Work.example "), caller: caller(f, f.bob))
            guard case .codeSent(let expiresAt) = start else { Issue.record("no code sent: \(start)"); return }
            #expect(expiresAt > f.clock.milliseconds)
            let code = try #require(f.log.latest("nimbus.code"))
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            #expect(f.log.latest("nimbus.address") == "bob@work.example")

            try await f.accounts.confirmVerification(of: .emailAddress("bob@work.example"), code: code, caller: caller(f, f.bob))
            let accepted = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(f.bob))
            #expect(try accepted[0].get().participantStatus == .accepted)
            // The address now finds Bob, for later invitations.
            let found = try await f.accounts.lookUpUsers([.emailAddress("BOB@work.example")], caller: caller(f, f.alice))
            #expect(found.first??.userRecordName == f.bob)
            // Asking again is a no-op.
            #expect(try await f.accounts.startVerification(of: .emailAddress("bob@work.example"), caller: caller(f, f.bob)) == .alreadyVerified)
        }
    }

    @Test("wrong, expired and exhausted codes prove nothing and link nothing")
    func wrongCodes() async throws {
        try await EngineFixture.with { f in
            let guid = try await invite(f, "bob@work.example")
            let address = LookupInfo.emailAddress("bob@work.example")
            _ = try await f.accounts.startVerification(of: address, caller: caller(f, f.bob))
            let code = try #require(f.log.latest("nimbus.code"))

            // Another user cannot use Bob's code.
            let carol = try await f.accounts.addUser(name: "Carol", email: nil, phone: nil, container: EngineFixture.container)
            await #expect(throws: NimbusError.self) {
                try await f.accounts.confirmVerification(of: address, code: code, caller: caller(f, carol.user.userRecordName))
            }
            // Expired.
            f.clock.advance(by: .milliseconds(AccountService.verificationCodeLifetime + 1))
            await #expect(throws: NimbusError.self) { try await f.accounts.confirmVerification(of: address, code: code, caller: caller(f, f.bob)) }

            // Five wrong codes use a verification up, even if the right one follows.
            _ = try await f.accounts.startVerification(of: address, caller: caller(f, f.bob))
            let fresh = try #require(f.log.latest("nimbus.code"))
            let miss = fresh == "000000" ? "111111" : "000000"
            for _ in 0..<AccountService.verificationAttempts {
                await #expect(throws: NimbusError.self) {
                    try await f.accounts.confirmVerification(of: address, code: miss, caller: caller(f, f.bob))
                }
            }
            await #expect(throws: NimbusError.self) { try await f.accounts.confirmVerification(of: address, code: fresh, caller: caller(f, f.bob)) }

            // Nothing was linked: the invitation is still not Bob's, the address finds nobody.
            let accept = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(f.bob))
            #expect((try? accept[0].get()) == nil)
            let found = try await f.accounts.lookUpUsers([address], caller: caller(f, f.alice))
            #expect(found.first! == nil)
        }
    }

    @Test("an address that is another user's cannot be claimed, and record names are not addresses")
    func takenAddresses() async throws {
        try await EngineFixture.with { f in
            do {
                _ = try await f.accounts.startVerification(of: .emailAddress("alice@example.com"), caller: caller(f, f.bob))
                Issue.record("Bob could start proving Alice's address")
            } catch let error as NimbusError {
                #expect(error.code == .alreadyExists)
            }
            do {
                _ = try await f.accounts.startVerification(of: .userRecordName(f.alice), caller: caller(f, f.bob))
                Issue.record("a record name was accepted as an address")
            } catch let error as NimbusError {
                #expect(error.code == .badRequest)
            }
            let anonymous = Caller(container: EngineFixture.container, environment: .development, kind: .anonymous, userRecordName: nil)
            await #expect(throws: NimbusError.self) {
                _ = try await f.accounts.startVerification(of: .emailAddress("x@example.com"), caller: anonymous)
            }
            #expect(f.log.latest("nimbus.code") == nil, "no code was sent")
        }
    }

    @Test(
        "addresses that are not email addresses or phone numbers are refused before anything is sent or logged",
        arguments: [
            LookupInfo.emailAddress("bob@work.example\n2026-01-01 notice nimbus: forged"), .emailAddress("bob\u{1B}[31m@work.example"),
            .emailAddress("bob@work.example\u{0}"), .emailAddress("bob"), .emailAddress("a@b@c.example"), .emailAddress("bob@localhost"),
            .phoneNumber("+1 555\n0100"), .phoneNumber("call me"), .phoneNumber("12"),
        ]
    )
    func malformedAddresses(address: LookupInfo) async throws {
        try await EngineFixture.with { f in
            do {
                _ = try await f.accounts.startVerification(of: address, caller: caller(f, f.bob))
                Issue.record("\(address) was accepted")
            } catch let error as NimbusError {
                #expect(error.code == .badRequest)
            }
            #expect(f.log.latest("nimbus.code") == nil, "no code was sent")
            #expect(f.log.latest("nimbus.address") == nil, "the address was not logged")
        }
    }
}
