//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOCore
import NIOPosix
import NIOSSL

/// One TCP connection to an SMTP server: a line is written, then its reply is read.
///
/// Every wait is bounded by the timeout: connecting, each reply (so a server that accepts and
/// then says nothing fails the message), and each write (so one that stops reading does too).
/// The replies are read by ``SMTPReplyHandler`` on the event loop; this type is what the
/// sending task holds. It holds the handler too, not only the channel: a closed channel's
/// pipeline lets go of its handlers, and with them of the replies that came before the close.
struct SMTPConnection: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<SMTPReplyHandler>
    private let timeout: TimeAmount

    /// Connects to `host:port`, through TLS from the first byte when `tls` is given.
    /// - Parameters:
    ///   - serverHostname: The name the certificate must carry (and the SNI); `nil` for an IP
    ///     address, which the certificate is then checked against.
    static func connect(
        host: String,
        port: Int,
        tls: NIOSSLContext?,
        serverHostname: String?,
        timeout: Duration
    ) async throws(SMTPError) -> SMTPConnection {
        let timeout = TimeAmount(timeout)
        // One loop for the connection and the future that hands it over. The handler is kept
        // as the pipeline is built, not looked up once connected: a server that answers `554`
        // and hangs up at once may have had its connection read, closed and its pipeline
        // emptied by the time the connection is handed over, and the handler holds that `554`.
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let replies = NIOLoopBoundBox.makeEmptyBox(valueType: SMTPReplyHandler.self, eventLoop: eventLoop)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                    }
                    let handler = SMTPReplyHandler()
                    try channel.pipeline.syncOperations.addHandler(handler)
                    replies.value = handler
                }
            }
        do {
            let (channel, handler) = try await bootstrap.connect(host: host, port: port).flatMapThrowing { channel in
                guard let handler = replies.value else { throw ChannelPipelineError.notFound }
                return (channel, NIOLoopBound(handler, eventLoop: eventLoop))
            }.get()
            return SMTPConnection(channel: channel, handler: handler, timeout: timeout)
        } catch ChannelError.connectTimeout {
            throw SMTPError(.timedOut, "connecting to \(host):\(port) took longer than \(Duration(timeout))")
        } catch {
            throw SMTPError(.connectionFailed, "cannot connect to \(host):\(port) (\(error))")
        }
    }

    /// The domain to greet the server with: our address as an address literal (RFC 5321
    /// 4.1.3), which is always well-formed, where the machine's host name may not be a
    /// fully qualified domain.
    var localAddressLiteral: String {
        guard let address = channel.localAddress, let ip = address.ipAddress else { return "[127.0.0.1]" }
        if case .v6 = address { return "[IPv6:\(ip)]" }
        return "[\(ip)]"
    }

    /// Reads the next reply.
    func reply() async throws -> SMTPReply {
        let handler = handler
        let timeout = timeout
        return try await handler.eventLoop.flatSubmit {
            handler.value.nextReply(on: handler.eventLoop, timeout: timeout)
        }.get()
    }

    /// Writes `line` and CRLF, and reads the reply.
    func send(_ line: String) async throws -> SMTPReply {
        try await write(Array((line + "\r\n").utf8))
        return try await reply()
    }

    /// Writes bytes as they are.
    func write(_ bytes: [UInt8]) async throws {
        let channel = channel
        let deadline = ContinuousClock.now + Duration(timeout)
        // A server that stops reading would leave the write waiting for room in the socket.
        let closer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer { closer.cancel() }
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        } catch {
            if ContinuousClock.now >= deadline { throw SMTPError(.timedOut, "the server did not take what was sent within the timeout") }
            // The server may have said why before it closed (`421 closing`): that is the error.
            let reply = try await reply()
            throw SMTPError(.refused, "the server closed the connection", reply: reply)
        }
    }

    /// Starts TLS on the connection, after the server agreed to STARTTLS; the handshake runs
    /// before anything written next goes out, and its failure fails the next reply.
    func startTLS(_ tls: NIOSSLContext, serverHostname: String?) async throws {
        let channel = channel
        let handler = handler
        try await channel.eventLoop.submit {
            // Bytes that came after the go-ahead came unencrypted, possibly from someone on the
            // path, and would be read as answers given over TLS (CVE-2011-0411's injection).
            guard handler.value.isDrained else {
                throw SMTPError(.protocolViolation, "the server sent more after agreeing to STARTTLS")
            }
            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname), position: .first)
        }.get()
    }

    /// Closes the connection; with `quit`, says `QUIT` first without waiting for the answer,
    /// as a courtesy to a server whose transaction failed.
    func close(quit: Bool) async {
        if quit, channel.isActive { try? await channel.writeAndFlush(ByteBuffer(string: "QUIT\r\n")) }
        try? await channel.close()
    }
}
