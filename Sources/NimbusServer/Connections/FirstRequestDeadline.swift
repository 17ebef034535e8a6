//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOCore

/// Closes a connection whose first request does not arrive in time: no byte within the
/// first-byte timeout, or no complete head (request line and headers) within the head timeout.
///
/// It sits first in the pipeline, on the raw bytes, so it guards the WebSocket upgrade too: the
/// framework adds its idle timeout only once a first request head has been read, and a
/// connection that never finishes one would otherwise hold a descriptor forever. Once the head
/// is complete (the blank line after the headers), the handler leaves the pipeline and the
/// framework's idle timeout takes over.
final class FirstRequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let firstByteTimeout: TimeAmount
    private let headTimeout: TimeAmount
    private var firstByteTimer: Scheduled<Void>?
    private var headTimer: Scheduled<Void>?
    /// How much of the blank line ending a head (`\r\n\r\n`) the bytes so far end with.
    private var matched = 0
    private var isDone = false

    init(firstByteTimeout: TimeAmount, headTimeout: TimeAmount) {
        self.firstByteTimeout = firstByteTimeout
        self.headTimeout = headTimeout
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
        guard !isDone else { return context.fireChannelRead(data) }
        firstByteTimer?.cancel()
        firstByteTimer = nil
        let buffer = unwrapInboundIn(data)
        if endsHead(buffer.readableBytesView) {
            isDone = true
            cancelTimers()
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        context.fireChannelInactive()
    }

    // MARK: - Private

    private func arm(_ context: ChannelHandlerContext) {
        guard firstByteTimer == nil, headTimer == nil, !isDone else { return }
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
