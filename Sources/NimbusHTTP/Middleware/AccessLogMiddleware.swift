//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import Logging
import NimbusModel

/// One log line per request at info level: the method, the route (its pattern, such as
/// `/database/1/:container/...`, never the path as sent, which may hold a link's secret), the
/// CloudKit operation, the status, the duration and the request UUID a client sees in its
/// errors. Headers and bodies, where tokens travel, are never logged.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = NimbusRequestContext

    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: response.status.code, since: started)
            return response
        } catch {
            let status =
                switch error {
                case let error as NimbusError: error.code.httpStatus.code
                case let error as any HTTPResponseError: error.status.code
                default: 500
                }
            log(request, context, status: status, since: started)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, since started: ContinuousClock.Instant) {
        guard logger.logLevel <= .info else { return }
        let elapsed = ContinuousClock.now - started
        let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        let fraction = String(microseconds % 1000)
        var metadata: Logger.Metadata = [
            LogKey.method: "\(request.method.rawValue)",
            LogKey.route: "\(context.endpointPath ?? "(none)")",
            LogKey.status: "\(status)",
            LogKey.duration: "\(microseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)",
            LogKey.request: "\(context.requestID)",
        ]
        if let operation = context.outcome.operation { metadata[LogKey.operation] = "\(operation)" }
        logger.info("request", metadata: metadata)
    }
}
