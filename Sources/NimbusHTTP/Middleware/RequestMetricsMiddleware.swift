//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import NimbusModel

/// Counts each database operation, its failures by CloudKit code, and its latency, in the
/// metrics `/metrics` shows. Requests that name no operation (pages, `/health`) are not counted.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = NimbusRequestContext

    let metrics: HTTPMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(context, since: started, errorCode: nil)
            return response
        } catch {
            let code =
                switch error {
                case let error as NimbusError: error.code.serverErrorCode
                case is MethodRefusal: NimbusError.Code.badRequest.serverErrorCode
                default: NimbusError.Code.internalError.serverErrorCode
                }
            record(context, since: started, errorCode: code)
            throw error
        }
    }

    private func record(_ context: Context, since started: ContinuousClock.Instant, errorCode: String?) {
        guard let operation = context.outcome.operation else { return }
        let elapsed = ContinuousClock.now - started
        metrics.record(
            operation: operation,
            nanoseconds: elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000,
            errorCode: errorCode
        )
    }
}
