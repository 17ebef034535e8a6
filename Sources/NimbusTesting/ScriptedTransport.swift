//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusClient
import NimbusModel
import Synchronization

/// A ``NimbusClient/ClientTransport`` that answers from a script instead of a server: for the
/// failures a real server will not produce on demand (`retryAfter`, partial failures, dropped
/// connections, timeouts, a proxy's 503).
///
/// The script is `Codable`, so a test can keep it in a JSON file. Each request takes the next
/// step; the transport records every request it was sent. A request after the last step fails
/// the call with an `.internalError` naming the request, rather than passing for a dropped
/// connection.
///
/// ```swift
/// let transport = ScriptedTransport([
///     .response(status: 503, body: #"{"serverErrorCode":"TRY_AGAIN_LATER","reason":"busy","retryAfter":1}"#),
///     .timeout,
///     .response(status: 200, body: #"{"zones":[]}"#),
/// ])
/// ```
public final class ScriptedTransport: ClientTransport {
    /// One scripted answer.
    public indirect enum Step: Sendable, Hashable, Codable {
        /// An HTTP response with a JSON (or any text) body.
        case response(status: Int, headers: [String: String] = [:], body: String)
        /// No response: the connection dropped.
        case dropConnection
        /// No response: the request timed out.
        case timeout
        /// Another step, after a wait: for a slow server, or a request cancelled while it waits.
        case delayed(milliseconds: Int, Step)
    }

    /// The connection failure of a ``Step/dropConnection`` step.
    public struct ConnectionDropped: Error, CustomStringConvertible {
        public var description: String { "the scripted connection dropped" }
    }

    /// The failure of a ``Step/timeout`` step.
    public struct TimedOut: Error, CustomStringConvertible {
        public var description: String { "the scripted request timed out" }
    }

    private let state: Mutex<(steps: [Step], requests: [ClientRequest])>

    /// Creates a transport that answers with `steps`, in order.
    public init(_ steps: [Step]) {
        state = Mutex((steps, []))
    }

    /// The requests sent so far, in order.
    public var requests: [ClientRequest] { state.withLock { $0.requests } }

    /// The steps not used yet.
    public var remainingSteps: [Step] { state.withLock { $0.steps } }

    public func send(_ request: ClientRequest) async throws -> ClientResponse {
        let (step, number) = state.withLock { state -> (Step?, Int) in
            state.requests.append(request)
            return (state.steps.isEmpty ? nil : state.steps.removeFirst(), state.requests.count)
        }
        guard let step else {
            throw NimbusError(.internalError, "the script has no step left for request \(number) (\(request.method) \(request.url))")
        }
        return try await answer(step)
    }

    private func answer(_ step: Step) async throws -> ClientResponse {
        switch step {
        case .dropConnection: throw ConnectionDropped()
        case .timeout: throw TimedOut()
        case .delayed(let milliseconds, let next):
            try await Task.sleep(for: .milliseconds(milliseconds))
            return try await answer(next)
        case .response(let status, let headers, let body): return ClientResponse(status: status, headers: headers, body: Array(body.utf8))
        }
    }
}
