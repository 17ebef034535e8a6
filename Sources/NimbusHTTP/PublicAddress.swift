//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

/// The server's public URL, for the links it writes (the sign-in `redirectURL`, share and
/// invitation URLs): settable once, when a server told to listen on port 0 learns its port.
public final class PublicAddress: Sendable {
    private let url: Mutex<String>

    /// An address known now.
    public init(_ url: String) {
        self.url = Mutex(url)
    }

    /// The URL, without a trailing slash.
    public var value: String { url.withLock { $0 } }

    /// Replaces the URL: the listener's real one, once it is bound.
    public func set(_ newValue: String) {
        url.withLock { $0 = newValue }
    }
}
