//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import Synchronization

/// Tells the user when the server rotated their web auth token during a command.
///
/// CloudKit Web Services may answer with a replacement token, and the one the command was given
/// then stops working shortly after. A long-lived app follows the rotation by itself; a command
/// exits, so it prints the new token for the user to keep.
enum TokenRotationNotice {
    private static let watched = Mutex<[(container: Container, original: String)]>([])

    /// Watches a container whose requests carry `original`.
    static func watch(_ container: Container, original: String?) {
        guard let original else { return }
        watched.withLock { $0.append((container, original)) }
    }

    /// Prints the replacement token, if any container got one.
    static func report() {
        let rotated = watched.withLock { entries in
            entries.compactMap { entry in
                entry.container.webAuthToken.flatMap { $0 == entry.original ? nil : $0 }
            }
        }
        guard let latest = rotated.last else { return }
        FileHandle.standardError.write(
            Data(
                """
                nimbus: the server replaced your web auth token, and the old one stops working soon. Use the new one:
                export NIMBUS_WEB_AUTH_TOKEN='\(latest)'

                """.utf8
            )
        )
    }
}
