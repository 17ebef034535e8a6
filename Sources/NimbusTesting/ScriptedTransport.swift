//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusClient
import Synchronization

/// A ``NimbusClient/ClientTransport`` that answers from a script instead of a server: for the
/// failures a real server will not produce on demand (`retryAfter`, partial failures, dropped
/// connections).
///
/// The script is `Codable`, so a test can keep it in a JSON file. Each request takes the next
/// step; the transport records every request it was sent.
///
/// ```swift
/// let transport = ScriptedTransport([
///     .response(status: 503, body: #"{"serverErrorCode":"TRY_AGAIN_LATER","reason":"busy","retryAfter":1}"#),
///     .response(status: 200, body: #"{"zones":[]}"#),
/// ])
/// ```
public final class ScriptedTransport: ClientTransport {
    /// One scripted answer.
    public enum Step: Sendable, Hashable, Codable {
        /// An HTTP response with a JSON (or any text) body.
        case response(status: Int, headers: [String: String] = [:], body: String)
        /// No response: the connection dropped or timed out.
        case dropConnection
    }

    /// The transport ran out of script.
    public struct ScriptExhausted: Error, CustomStringConvertible {
        public var description: String { "the script has no step left for this request" }
    }

    /// The connection failure of a ``Step/dropConnection`` step.
    public struct ConnectionDropped: Error, CustomStringConvertible {
        public var description: String { "the scripted connection dropped" }
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
        let step = state.withLock { state -> Step? in
            state.requests.append(request)
            return state.steps.isEmpty ? nil : state.steps.removeFirst()
        }
        switch step {
        case nil: throw ScriptExhausted()
        case .dropConnection: throw ConnectionDropped()
        case .response(let status, let headers, let body): return ClientResponse(status: status, headers: headers, body: Array(body.utf8))
        }
    }
}
