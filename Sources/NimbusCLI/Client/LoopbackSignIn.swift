//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Hummingbird
import Logging
import NimbusEngine
import ServiceLifecycle

/// The browser half of `nimbus login --browser`: a one-time listener on a loopback port that the
/// sign-in page redirects to with the new session's token (RFC 8252 §7.3, as `gh auth login` and
/// `gcloud auth login` do).
///
/// Decision: the listener binds 127.0.0.1 only, on a port the system picks, and takes one
/// redirect that carries the `state` this login made (128 random bits); anything else gets a 400
/// and the wait goes on, so another page on the machine cannot hand the CLI a session of its own.
struct LoopbackSignIn {
    let state = Base64URL.encode((0..<16).map { _ in UInt8.random(in: .min ... .max) })

    /// Listens, calls `announce` with the callback URL, and returns the web auth token once the
    /// browser comes back with it.
    /// - Throws: when nothing came back within `timeout`, or the listener could not start.
    func receive(timeout: Duration, announce: @escaping @Sendable (_ callbackURL: String) async -> Void) async throws -> String {
        let (received, receivedContinuation) = AsyncStream.makeStream(of: String.self)
        let state = self.state
        let router = Router()
        router.get("/callback") { request, _ -> Response in
            let query = request.uri.queryParameters
            guard let sent = query["state"], ConstantTime.equal(Array(sent.utf8), Array(state.utf8)),
                let token = query["ckWebAuthToken"], !token.isEmpty
            else {
                return Self.page(status: .badRequest, "This is not the sign-in that nimbus login started. Nothing was saved.")
            }
            receivedContinuation.yield(String(token))
            return Self.page(status: .ok, "Signed in. You can close this page and go back to the terminal.")
        }
        var logger = Logger(label: "nimbus-login")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { await announce("http://127.0.0.1:\(port)/callback") }
            },
            logger: logger
        )
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        let serving = Task {
            // A listener that stops (or never starts) ends the wait.
            defer { receivedContinuation.finish() }
            try await group.run()
        }
        defer { serving.cancel() }
        let token = try await withThrowingTaskGroup(of: String?.self) { tasks in
            tasks.addTask {
                var iterator = received.makeAsyncIterator()
                return await iterator.next()
            }
            tasks.addTask {
                try await Task.sleep(for: timeout)
                throw CommandFailure(description: "no sign-in came back within \(timeout.components.seconds) seconds")
            }
            defer { tasks.cancelAll() }
            guard let first = try await tasks.next(), let token = first else {
                let failure = await serving.result
                if case .failure(let error) = failure { throw CommandFailure(description: "the loopback listener failed: \(error)") }
                throw CommandFailure(description: "the loopback listener stopped")
            }
            return token
        }
        // Graceful: the page that brought the token still gets its answer.
        await group.triggerGracefulShutdown()
        _ = await serving.result
        return token
    }

    private static func page(status: HTTPResponse.Status, _ message: String) -> Response {
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><title>nimbus login</title>
            <style>body{font:16px system-ui,sans-serif;margin:4em auto;max-width:32em;color:#222}</style></head>
            <body><h1>nimbus login</h1><p id="status">\(message)</p></body></html>
            """
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }
}
