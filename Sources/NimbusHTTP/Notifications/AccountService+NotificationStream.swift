//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel

extension AccountService {
    /// Authenticates a request for a user's notifications (the WebSocket stream, upgraded or
    /// not, and the inbox): the one place their credentials are checked, so every form of the
    /// request is refused alike.
    /// - Returns: the authentication and the signed-in user.
    /// - Throws: `.authenticationFailed` without an API token or with bad tokens;
    ///   `.authenticationRequired` without a signed-in user.
    func authenticateNotifications(apiToken: String?, webAuthToken: String?, route: NotificationsRoute) async throws(NimbusError)
        -> (Authentication, user: String)
    {
        guard let apiToken else {
            throw NimbusError(.authenticationFailed, "request has no credentials: pass ckAPIToken and ckWebAuthToken")
        }
        let authentication = try await authenticate(
            apiToken: apiToken,
            webAuthToken: webAuthToken,
            container: route.container,
            environment: route.environment
        )
        guard authentication.caller.kind == .user, let user = authentication.caller.userRecordName else {
            throw NimbusError(.authenticationRequired, "notifications need a signed-in user (ckWebAuthToken)")
        }
        return (authentication, user)
    }
}
