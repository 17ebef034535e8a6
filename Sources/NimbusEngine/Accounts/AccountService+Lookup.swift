//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

extension AccountService {
    /// The most lookups in one request.
    public static let maximumLookups = 200

    /// Finds users of the caller's container by email address, phone number or record name, for
    /// inviting them to a share (`users/lookup/email`, `users/lookup/id`, `users/discover`).
    ///
    /// Only exact matches are returned, so the directory cannot be listed; a user is found by
    /// an address only if they opted in to being found (CloudKit's discoverability; users an
    /// operator added with an address are). Anyone else answers as an unknown address does.
    /// Returns one element per lookup, `nil` where nobody matches.
    /// - Throws: `.authenticationRequired` for anonymous callers; `.limitExceeded` for more
    ///   than ``maximumLookups`` lookups.
    public func lookUpUsers(_ lookups: [LookupInfo], caller: Caller) async throws(NimbusError) -> [UserIdentity?] {
        guard caller.userRecordName != nil else {
            throw NimbusError(.authenticationRequired, "looking up users needs a signed-in user")
        }
        guard lookups.count <= Self.maximumLookups else {
            throw .limitExceeded("a request may look up at most \(Self.maximumLookups) users")
        }
        var found: [UserIdentity?] = []
        for lookup in lookups {
            do {
                guard let user = try await store.user(matching: lookup, inContainer: caller.container) else {
                    found.append(nil)
                    continue
                }
                if case .userRecordName = lookup {
                    found.append(user)
                } else {
                    let discoverable = try await store.account(of: user.userRecordName, inContainer: caller.container)?.isDiscoverable ?? false
                    found.append(discoverable ? user : nil)
                }
            } catch {
                throw internalError(error)
            }
        }
        return found
    }
}
