//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import Logging
import NimbusModel

/// Answers every failure in CloudKit's shape: the one place an error becomes a response.
///
/// Handlers throw ``NimbusError`` (the engine maps store and driver failures to it), so a
/// client never gets a bare 500. A path no route takes gets the error that says which part of
/// a database path is wrong, or a `405` when only the method is; anything else is an internal
/// error, logged here.
struct CloudKitErrorMiddleware: RouterMiddleware {
    typealias Context = NimbusRequestContext

    /// Where sign-in pages are, for the `redirectURL` of a `421`.
    let publicAddress: PublicAddress
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as NimbusError {
            return answer(error, to: request, context: context)
        } catch let refusal as MethodRefusal {
            var answer = CloudKitErrorResponse(error: CloudKitErrorResponse.methodRefusal, requestID: context.requestID)
            answer.allowedMethods = refusal.allowedMethods
            return answer.response()
        } catch let error as HTTPError where error.status == .notFound {
            return unrouted(request, context: context)
        } catch {
            logger.error(
                "Request failed unexpectedly",
                metadata: [LogKey.request: "\(context.requestID)", LogKey.error: "\(String(reflecting: error))"]
            )
            return answer(NimbusError(.internalError, "the server failed to answer"), to: request, context: context)
        }
    }

    private func answer(_ error: NimbusError, to request: Request, context: Context) -> Response {
        // Metadata goes with the call, not on a per-request logger copy: setting a logger's
        // metadata makes some handlers re-render it, on every request. A failure of the
        // server's own (the cause is logged where it happened) is a warning, so an operator
        // can find the request a client reports by its UUID; a client's mistake is debug.
        let serverSide = error.code == .internalError || error.code == .serviceUnavailable
        logger.log(
            level: serverSide ? .warning : .debug,
            "Request failed",
            metadata: [
                // The route's pattern, never the path as sent: a web courier's path is its token.
                LogKey.request: "\(context.requestID)", LogKey.operation: "\(context.outcome.operation ?? context.endpointPath ?? "(no route)")",
                LogKey.code: "\(error.code.serverErrorCode)",
            ]
        )
        var answer = CloudKitErrorResponse(error: error, requestID: context.requestID)
        if error.code == .authenticationRequired {
            answer.redirectURL = SignInPage.url(forRequestPath: request.uri.path, base: publicAddress.value)
        }
        return answer.response()
    }

    /// A path no route takes: a database path tells which of its parts is wrong; one that only
    /// came with a method no route takes is a `405`.
    private func unrouted(_ request: Request, context: Context) -> Response {
        do throws(NimbusError) {
            _ = try DatabaseRoute.parse(request.uri.path)
            var answer = CloudKitErrorResponse(error: CloudKitErrorResponse.methodRefusal, requestID: context.requestID)
            answer.allowedMethods = DatabaseRoute.allowedMethods
            return answer.response()
        } catch {
            return answer(error, to: request, context: context)
        }
    }
}

/// Thrown by a route for a method it does not take, answered `405` with an `Allow` header.
struct MethodRefusal: Error {
    /// The methods the route takes, as the `Allow` header lists them.
    let allowedMethods: String
}
