//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusWire

extension DatabaseEndpoints {
    /// `users/lookup/email` and `users/lookup/id`: the users found, misses left out.
    func lookUpUsers() async throws(NimbusError) -> [UInt8] {
        let request = try UsersLookupRequest.parse(body)
        let found = try await accounts.lookUpUsers(request.lookups, caller: access.caller)
        return encode(UsersLookupResponse(users: zip(request.lookups, found).compactMap { lookup, user in user.map { (lookup, $0) } }))
    }

    /// `users/discover`: one identity per lookup. A GET asks for the caller's contacts, which
    /// the server does not have: it answers an empty list.
    func discoverUsers() async throws(NimbusError) -> [UInt8] {
        let lookups = body.isEmpty ? [] : try UsersLookupRequest.parse(body).lookups
        let found = try await accounts.lookUpUsers(lookups, caller: access.caller)
        return encode(UsersDiscoverResponse(results: Array(zip(lookups, found))))
    }

    /// `users/contacts/verify` (extension): sends a one-time code to an address the caller
    /// says is theirs.
    func startContactVerification() async throws(NimbusError) -> [UInt8] {
        let request = try ContactVerificationRequest.parse(body)
        switch try await accounts.startVerification(of: request.address, caller: access.caller) {
        case .codeSent(let expiresAt):
            return encode(ContactVerificationResponse(address: request.address.normalized, verified: false, expiresAt: expiresAt))
        case .alreadyVerified:
            return encode(ContactVerificationResponse(address: request.address.normalized, verified: true))
        }
    }

    /// `users/contacts/confirm` (extension): checks the code; the address becomes the caller's.
    func confirmContactVerification() async throws(NimbusError) -> [UInt8] {
        let request = try ContactVerificationRequest.parse(body)
        guard let code = request.code else { throw .badRequest("code is missing: send the code you received") }
        try await accounts.confirmVerification(of: request.address, code: code, caller: access.caller)
        return encode(ContactVerificationResponse(address: request.address.normalized, verified: true))
    }
}
