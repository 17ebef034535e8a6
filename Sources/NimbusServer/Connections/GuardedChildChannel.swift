//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// The server's connections, with ``ConnectionGuard`` in front of whatever the framework
/// sets up (HTTP/1 with the WebSocket upgrade).
///
/// Hummingbird offers no hook that runs before its HTTP pipeline: its `additionalChannelHandlers`
/// are added after the first request head has been decoded, which is too late to time that head.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let firstByteTimeout: TimeAmount
    let headTimeout: TimeAmount
    /// The server's certificates, when it speaks TLS: the TLS handler goes first, so the
    /// guard's deadlines and the HTTP handlers see the decrypted bytes.
    var certificates: TLSCertificates?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuard(firstByteTimeout: firstByteTimeout, headTimeout: headTimeout),
                position: .first
            )
            if let certificates {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: certificates.context()), position: .first)
            }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
