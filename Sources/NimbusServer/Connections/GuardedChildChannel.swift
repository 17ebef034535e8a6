//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HummingbirdCore
import Logging
import NIOCore

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

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuard(firstByteTimeout: firstByteTimeout, headTimeout: headTimeout),
                position: .first
            )
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
