//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Crypto

/// How a ``Container`` proves who is calling, in one of CloudKit Web Services' two modes.
public enum Authentication: Sendable {
    /// A container API token, and optionally a signed-in user's web auth token (needed for the
    /// private and shared databases).
    ///
    /// The server answers each request with a replacement web auth token; the container switches
    /// to it, as CloudKit clients must (``Container/webAuthToken`` is the current one).
    case apiToken(String, webAuthToken: String? = nil)
    /// A server-to-server key: requests are signed with the private half of a P-256 key whose
    /// public half was registered with `nimbus key add`. Acts on the public database.
    case serverToServer(keyID: String, privateKey: P256.Signing.PrivateKey)
}
