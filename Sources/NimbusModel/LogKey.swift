//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The metadata keys of the server's log lines: one spelling for operators to search for, and
/// for the code to use (a misspelt key would log under a name nobody looks for).
package enum LogKey {
    /// What failed, with the driver's or the system's detail (never a secret or user data).
    package static let error = "nimbus.error"
    /// Why a remote service refused something (APNs).
    package static let reason = "nimbus.reason"
    /// How many rows or entries a pass removed.
    package static let count = "nimbus.count"
    /// An error code (`serverErrorCode`), or a one-time verification code in development.
    package static let code = "nimbus.code"
    /// A zone, as tenant and zone name.
    package static let zone = "nimbus.zone"
    /// A zone's change counter.
    package static let counter = "nimbus.counter"
    /// The server's URL, on the line that says it is ready.
    package static let url = "nimbus.url"
    /// The data directory.
    package static let data = "nimbus.data"
    /// A container identifier.
    package static let container = "nimbus.container"
    /// A user record name.
    package static let user = "nimbus.user"
    /// An email address or phone number being verified.
    package static let address = "nimbus.address"
    /// A request's ID, the `X-Apple-Request-UUID` the client sees.
    package static let request = "nimbus.request"
    /// A request's operation, such as `records/modify`.
    package static let operation = "nimbus.operation"
    /// A notification's ID.
    package static let notification = "nimbus.notification"
    /// How many times something failed in a row.
    package static let failures = "nimbus.failures"
    /// A request's HTTP method (the access log).
    package static let method = "nimbus.method"
    /// The route a request took, as its pattern: `/database/1/{container}/...`, never the path
    /// as sent, which may hold a link's secret (the access log).
    package static let route = "nimbus.route"
    /// The HTTP status a request was answered with (the access log).
    package static let status = "nimbus.status"
    /// How long a request took in the server, in milliseconds (the access log).
    package static let duration = "nimbus.duration_ms"
}
