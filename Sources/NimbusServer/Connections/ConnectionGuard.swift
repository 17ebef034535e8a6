//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOCore

/// The front of every connection, on the raw bytes: closes a connection whose first request
/// does not arrive in time, and writes the answer to a refused WebSocket upgrade.
///
/// - Deadlines: no byte within the first-byte timeout, or no complete head (request line and
///   headers) within the head timeout, closes the connection. The framework adds its idle
///   timeout only once a first request head has been read (for a WebSocket upgrade, once the
///   upgrade is decided), so a connection that never finishes one would otherwise hold a
///   descriptor forever. Once the head is in (the blank line after the headers) the guard only
///   passes bytes on.
/// - Refused upgrades: the framework answers an upgrade it does not make with a bare `400` and
///   no body. The guard writes the CloudKit-shaped answer first, as it would be for the same URL
///   without `Upgrade`, and closes the connection, so the framework's answer is never sent.
final class ConnectionGuard: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let firstByteTimeout: TimeAmount
    private let headTimeout: TimeAmount
    private var firstByteTimer: Scheduled<Void>?
    private var headTimer: Scheduled<Void>?
    /// How much of the blank line ending a head (`\r\n\r\n`) the bytes so far end with.
    private var matched = 0
    private var isHeadComplete = false

    init(firstByteTimeout: TimeAmount, headTimeout: TimeAmount) {
        self.firstByteTimeout = firstByteTimeout
        self.headTimeout = headTimeout
    }

    /// Writes `response` (a whole HTTP/1.1 response) on `channel` in front of everything the
    /// framework set up, and closes the connection once it is written.
    static func answer(on channel: any Channel, with response: [UInt8]) async {
        let written = channel.pipeline.context(handlerType: ConnectionGuard.self).flatMap { context in
            context.writeAndFlush(NIOAny(ByteBuffer(bytes: response)))
                .flatMap { channel.close() }
        }
        try? await written.get()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !isHeadComplete {
            firstByteTimer?.cancel()
            firstByteTimer = nil
            if endsHead(unwrapInboundIn(data).readableBytesView) {
                isHeadComplete = true
                cancelTimers()
            }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        context.fireChannelInactive()
    }

    // MARK: - Private

    private func arm(_ context: ChannelHandlerContext) {
        guard firstByteTimer == nil, headTimer == nil, !isHeadComplete else { return }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        firstByteTimer = context.eventLoop.scheduleTask(in: firstByteTimeout) { loopBound.value.close(promise: nil) }
        headTimer = context.eventLoop.scheduleTask(in: headTimeout) { loopBound.value.close(promise: nil) }
    }

    private func cancelTimers() {
        firstByteTimer?.cancel()
        headTimer?.cancel()
        firstByteTimer = nil
        headTimer = nil
    }

    /// Whether the head ends within these bytes, carrying a partial match over from earlier reads.
    private func endsHead(_ bytes: ByteBufferView) -> Bool {
        let blankLine: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        for byte in bytes {
            if byte == blankLine[matched] {
                matched += 1
                if matched == blankLine.count { return true }
            } else {
                matched = byte == blankLine[0] ? 1 : 0
            }
        }
        return false
    }
}
