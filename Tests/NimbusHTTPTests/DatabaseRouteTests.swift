//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusHTTP
import NimbusModel
import Testing

@Suite("routing a database request by its path")
struct DatabaseRouteTests {
    @Test("a documented path names its container, environment, database and operation")
    func documentedPath() throws {
        let route = try DatabaseRoute.parse("/database/1/iCloud.com.example.Tact/development/private/records/modify")
        #expect(route.container == "iCloud.com.example.Tact")
        #expect(route.environment == .development)
        #expect(route.scope == .private)
        #expect(route.operation == .recordsModify)
    }

    @Test("empty segments are skipped, and a container may hold any text but a slash")
    func emptySegmentsAndUnicode() throws {
        let route = try DatabaseRoute.parse("//database/1//iCloud.café.ünïcode/production/shared//zones/list/")
        #expect(route.container == "iCloud.café.ünïcode")
        #expect(route.environment == .production)
        #expect(route.scope == .shared)
        #expect(route.operation == .zonesList)
    }

    @Test("three-part operations, push tokens without a database, and subscriptions/lookup without one")
    func variants() throws {
        #expect(try DatabaseRoute.parse("/database/1/c/development/public/users/lookup/email").operation == .usersLookupEmail)
        #expect(try DatabaseRoute.parse("/device/1/c/production/tokens/register").operation == .tokensRegister)
        #expect(try DatabaseRoute.parse("/database/1/c/development/tokens/create").scope == .private)
        #expect(try DatabaseRoute.parse("/database/1/c/development/subscriptions/lookup").operation == .subscriptionsLookup)
    }

    @Test(
        "an unknown environment, database or operation is a bad request naming it",
        arguments: [
            ("/database/1/c/staging/private/records/modify", "staging"),
            ("/database/1/c/development/secret/records/modify", "secret"),
            ("/database/1/c/development/private/records/explode", "records/explode"),
            ("/database/2/c/development/private/records/modify", "/database/1/"),
        ]
    )
    func unknownParts(path: String, named: String) {
        #expect {
            try DatabaseRoute.parse(path)
        } throws: { error in
            guard let error = error as? NimbusError else { return false }
            return error.code == .badRequest && error.reason.contains(named)
        }
    }
}
