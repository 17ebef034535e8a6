//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

@Suite("finding users to invite")
struct UserLookupTests {
    @Test("users are found by email, phone and record name, in normal form; unknown ones are nil")
    func lookups() async throws {
        try await EngineFixture.with { f in
            let carol = try await f.accounts.addUser(
                name: "Carol Jones",
                email: " Carol@Example.COM",
                phone: "+1 (555) 010-0199",
                container: EngineFixture.container
            )
            #expect(carol.user.emailAddress == "carol@example.com")
            #expect(carol.user.phoneNumber == "+15550100199")
            let caller = f.access(f.alice).caller
            let found = try await f.accounts.lookUpUsers(
                [
                    .emailAddress("carol@example.com"), .emailAddress("CAROL@example.com "), .phoneNumber("+1 555 010 0199"),
                    .phoneNumber("+15550100199"), .userRecordName(carol.user.userRecordName), .emailAddress("nobody@example.com"),
                    .userRecordName("_00000000000000000000000000000000"),
                ],
                caller: caller
            )
            #expect(found.map { $0?.userRecordName } == Array(repeating: carol.user.userRecordName, count: 5) + [nil, nil])
        }
    }

    @Test("anonymous callers cannot look users up, and users of another container are not found")
    func privacy() async throws {
        try await EngineFixture.with { f in
            let anonymous = f.access(nil).caller
            let error = await #expect(throws: NimbusError.self) {
                _ = try await f.accounts.lookUpUsers([.emailAddress("alice@example.com")], caller: anonymous)
            }
            #expect(error?.code == .authenticationRequired)
            _ = try await f.accounts.createContainer("iCloud.other", environment: .development)
            let stranger = try await f.accounts.addUser(name: "Stranger", email: "alice@example.com", phone: nil, container: "iCloud.other")
            let other = Caller(container: "iCloud.other", environment: .development, kind: .user, userRecordName: stranger.user.userRecordName)
            let found = try await f.accounts.lookUpUsers([.userRecordName(f.alice), .emailAddress("alice@example.com")], caller: other)
            #expect(found.map { $0?.userRecordName } == [nil, stranger.user.userRecordName])
        }
    }

    @Test("an email address or phone number belongs to one user of a container")
    func uniqueAddresses() async throws {
        try await EngineFixture.with { f in
            let error = await #expect(throws: NimbusError.self) {
                _ = try await f.accounts.addUser(name: "Alias", email: "ALICE@example.com", phone: nil, container: EngineFixture.container)
            }
            #expect(error?.code == .alreadyExists)
            let found = try await f.accounts.lookUpUsers([.emailAddress("alice@example.com")], caller: f.access(f.bob).caller)
            #expect(found.first??.userRecordName == f.alice)
        }
    }
}
