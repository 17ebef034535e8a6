//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOCore
import NIOSSL

/// The end of an SMTP client's pipeline: parses the server's replies and hands them, one per
/// request, to ``SMTPConnection``.
///
/// Everything here runs on the channel's event loop. A reply that arrives before it is asked
/// for waits in a queue; one that is asked for and does not arrive within the timeout fails
/// the request and closes the connection. When the connection fails or closes, the replies
/// already received are still handed out first: a server that answers `554` and hangs up is
/// reported with its `554`, not as a closed connection.
final class SMTPReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var parser = SMTPReplyParser()
    private var replies = CircularBuffer<SMTPReply>()
    private var waiter: (promise: EventLoopPromise<SMTPReply>, timeout: Scheduled<Void>)?
    private var failure: SMTPError?
    private var context: ChannelHandlerContext?

    /// Whether nothing has arrived that was not handed out: at STARTTLS, anything more came
    /// unencrypted after the server's go-ahead, and would be taken as an answer sent over TLS.
    var isDrained: Bool { replies.isEmpty && !parser.hasBufferedInput }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        parser.append(buffer.readableBytesView)
        do {
            while let reply = try parser.next() { replies.append(reply) }
        } catch {
            fail(error)
            context.close(promise: nil)
        }
        handOut()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(Self.describe(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SMTPError(.connectionFailed, "the server closed the connection"))
        context.fireChannelInactive()
    }

    /// The next reply; fails after `timeout`, or when the connection fails or closes.
    func nextReply(on eventLoop: any EventLoop, timeout: TimeAmount) -> EventLoopFuture<SMTPReply> {
        precondition(waiter == nil, "one SMTP command at a time")
        let promise = eventLoop.makePromise(of: SMTPReply.self)
        let scheduled = eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            fail(SMTPError(.timedOut, "the server did not answer within \(Duration(timeout))"))
            self.context?.close(promise: nil)
        }
        waiter = (promise, scheduled)
        handOut()
        return promise.futureResult
    }

    private func handOut() {
        guard let waiter else { return }
        if let reply = replies.popFirst() {
            self.waiter = nil
            waiter.timeout.cancel()
            waiter.promise.succeed(reply)
        } else if let failure {
            self.waiter = nil
            waiter.timeout.cancel()
            waiter.promise.fail(failure)
        }
    }

    /// Records the first failure (later ones follow from it) and hands it out once the
    /// replies that came before it are.
    private func fail(_ error: SMTPError) {
        if failure == nil { failure = error }
        handOut()
    }

    /// An error of the pipeline as the operator should read it.
    private static func describe(_ error: any Error) -> SMTPError {
        if let error = error as? SMTPError { return error }
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            return SMTPError(.tlsFailed, "the TLS handshake failed (\(error))")
        }
        return SMTPError(.connectionFailed, "the connection failed (\(error))")
    }
}
