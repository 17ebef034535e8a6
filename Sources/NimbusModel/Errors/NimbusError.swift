//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The one error type Nimbus reports to clients.
///
/// Its ``Code`` mirrors CloudKit's error codes; each code maps to exactly one of the fourteen
/// `serverErrorCode` strings of CloudKit Web Services (clients such as MistKit reject any
/// other). `reason` is shown to clients, so it never contains SQL, secrets, or data the caller
/// may not read.
public struct NimbusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in CloudKit's vocabulary. Extensible: new codes are static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable {
            case permissionFailure, atomicFailure, authenticationFailed, authenticationRequired
            case badRequest, limitExceeded, changeTokenExpired, serverRecordChanged, alreadyExists
            case internalError, unknownItem, quotaExceeded, requestRateLimited, serviceUnavailable
            case referenceViolation, zoneNotFound, partialFailure, networkUnavailable
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The caller may not do this (`ACCESS_DENIED`).
        public static let permissionFailure = Code(.permissionFailure)
        /// Another operation of an atomic batch failed, so this one was not applied (`ATOMIC_ERROR`).
        public static let atomicFailure = Code(.atomicFailure)
        /// Credentials were rejected: bad token, bad signature, expired token (`AUTHENTICATION_FAILED`).
        public static let authenticationFailed = Code(.authenticationFailed)
        /// The request needs a signed-in user and has none (`AUTHENTICATION_REQUIRED`).
        public static let authenticationRequired = Code(.authenticationRequired)
        /// The request is malformed or invalid (`BAD_REQUEST`).
        public static let badRequest = Code(.badRequest)
        /// The request is over one of the server's limits (`BAD_REQUEST` with a reason naming it).
        public static let limitExceeded = Code(.limitExceeded)
        /// A sync token is too old or foreign; sync from scratch (`BAD_REQUEST`).
        public static let changeTokenExpired = Code(.changeTokenExpired)
        /// A stale `recordChangeTag`; carries the server's record (`CONFLICT`).
        public static let serverRecordChanged = Code(.serverRecordChanged)
        /// The record or zone already exists (`EXISTS`).
        public static let alreadyExists = Code(.alreadyExists)
        /// A server fault (`INTERNAL_ERROR`).
        public static let internalError = Code(.internalError)
        /// The record or resource does not exist, or the caller may not know it does (`NOT_FOUND`).
        public static let unknownItem = Code(.unknownItem)
        /// A storage quota is exhausted (`QUOTA_EXCEEDED`).
        public static let quotaExceeded = Code(.quotaExceeded)
        /// The caller is rate limited; retry after `retryAfter` (`THROTTLED`).
        public static let requestRateLimited = Code(.requestRateLimited)
        /// A transient server problem; retry after `retryAfter` (`TRY_AGAIN_LATER`).
        public static let serviceUnavailable = Code(.serviceUnavailable)
        /// A `VALIDATE` reference would dangle (`VALIDATING_REFERENCE_ERROR`).
        public static let referenceViolation = Code(.referenceViolation)
        /// The zone does not exist, or the caller may not know it does (`ZONE_NOT_FOUND`).
        public static let zoneNotFound = Code(.zoneNotFound)
        /// Some items of a batch failed and the others succeeded (CloudKit's `partialFailure`);
        /// ``NimbusError/partialErrorsByItemID`` says which and why. The SDK reports it; the wire
        /// has no such code, since CloudKit Web Services puts each item's error in its place in
        /// an HTTP 200 response.
        public static let partialFailure = Code(.partialFailure)
        /// The server could not be reached: the connection was refused, the host is unknown, or
        /// connecting timed out (CloudKit's `networkUnavailable`). Nothing was sent, so nothing
        /// happened; the SDK does not retry it. Never on the wire: a client reports it.
        public static let networkUnavailable = Code(.networkUnavailable)
        /// CloudKit's name for ``authenticationRequired``: the request needs a signed-in user.
        public static var notAuthenticated: Code { .authenticationRequired }

        /// The CloudKit Web Services `serverErrorCode` this code is reported as.
        public var serverErrorCode: String {
            switch base {
            case .permissionFailure: "ACCESS_DENIED"
            case .atomicFailure: "ATOMIC_ERROR"
            case .authenticationFailed: "AUTHENTICATION_FAILED"
            case .authenticationRequired: "AUTHENTICATION_REQUIRED"
            case .badRequest, .limitExceeded, .changeTokenExpired: "BAD_REQUEST"
            case .serverRecordChanged: "CONFLICT"
            case .alreadyExists: "EXISTS"
            case .internalError: "INTERNAL_ERROR"
            case .unknownItem: "NOT_FOUND"
            case .quotaExceeded: "QUOTA_EXCEEDED"
            case .requestRateLimited: "THROTTLED"
            case .serviceUnavailable: "TRY_AGAIN_LATER"
            case .referenceViolation: "VALIDATING_REFERENCE_ERROR"
            case .zoneNotFound: "ZONE_NOT_FOUND"
            // Never sent: a server reports each item's error in its place, and a client reports
            // that it could not reach the server.
            case .partialFailure, .networkUnavailable: "INTERNAL_ERROR"
            }
        }

        /// Nimbus's finer code where CloudKit's `serverErrorCode` is shared by several
        /// (`BAD_REQUEST` covers an expired sync token and an exceeded limit): sent as the extra
        /// key `nimbusErrorCode`, which CloudKit clients ignore and the Nimbus SDK reads.
        public var nimbusErrorCode: String? {
            switch base {
            case .changeTokenExpired: "CHANGE_TOKEN_EXPIRED"
            case .limitExceeded: "LIMIT_EXCEEDED"
            default: nil
            }
        }

        /// The code an error dictionary names: its `serverErrorCode` (CloudKit's, and the
        /// aliases clients meet), refined by Nimbus's `nimbusErrorCode` when it has one. An
        /// unknown code is an internal error. The one table of wire codes, with
        /// ``serverErrorCode`` and ``nimbusErrorCode``, which it reverses.
        public init(serverErrorCode: String, nimbusErrorCode: String? = nil) {
            switch nimbusErrorCode {
            case "CHANGE_TOKEN_EXPIRED":
                self = .changeTokenExpired
                return
            case "LIMIT_EXCEEDED":
                self = .limitExceeded
                return
            default: break
            }
            self =
                switch serverErrorCode {
                case "ACCESS_DENIED": .permissionFailure
                case "ATOMIC_ERROR": .atomicFailure
                case "AUTHENTICATION_FAILED": .authenticationFailed
                case "AUTHENTICATION_REQUIRED": .authenticationRequired
                case "BAD_REQUEST": .badRequest
                case "CONFLICT": .serverRecordChanged
                case "EXISTS": .alreadyExists
                case "NOT_FOUND", "UNKNOWN_ITEM": .unknownItem
                case "QUOTA_EXCEEDED": .quotaExceeded
                case "THROTTLED": .requestRateLimited
                case "TRY_AGAIN_LATER": .serviceUnavailable
                case "VALIDATING_REFERENCE_ERROR": .referenceViolation
                case "ZONE_NOT_FOUND": .zoneNotFound
                default: .internalError
                }
        }

        public var description: String {
            switch base {
            case .partialFailure: "PARTIAL_FAILURE"
            case .networkUnavailable: "NETWORK_UNAVAILABLE"
            default: serverErrorCode
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for the client, naming what was wrong with the request.
    public var reason: String
    /// For ``Code/serverRecordChanged``: the record as the server has it.
    public var serverRecord: Record? {
        get { serverRecordBox?.value }
        set { serverRecordBox = newValue.map(ValueBox.init) }
    }
    /// Where ``serverRecord`` is kept: out of line, since few errors carry one and errors are
    /// moved by value along every failure path (and make up half of every `Result` of a record).
    private var serverRecordBox: ValueBox<Record>?
    /// For retryable codes: how long to wait before retrying.
    public var retryAfter: Duration?
    /// For ``Code/partialFailure``: the error of each item that failed, by the item's ID (items
    /// not named here succeeded), as CloudKit's `partialErrorsByItemID`.
    public var partialErrorsByItemID: [ItemID: NimbusError] {
        get { partialErrorsBox?.value ?? [:] }
        set { partialErrorsBox = newValue.isEmpty ? nil : ValueBox(newValue) }
    }
    /// Where ``partialErrorsByItemID`` is kept: out of line, as ``serverRecord`` is.
    private var partialErrorsBox: ValueBox<[ItemID: NimbusError]>?

    /// The ID of one item of a batch, as ``partialErrorsByItemID`` names it.
    public enum ItemID: Sendable, Hashable, CustomStringConvertible {
        case record(RecordID)
        case zone(ZoneID)
        case subscription(String)

        public var description: String {
            switch self {
            case .record(let recordID): "record \(recordID)"
            case .zone(let zoneID): "zone \(zoneID)"
            case .subscription(let subscriptionID): "subscription \(subscriptionID)"
            }
        }
    }

    /// Creates an error.
    public init(_ code: Code, _ reason: String, serverRecord: Record? = nil, retryAfter: Duration? = nil) {
        self.code = code
        self.reason = reason
        self.serverRecord = serverRecord
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code): \(reason)" }
}

extension NimbusError {
    /// A malformed or invalid request.
    public static func badRequest(_ reason: String) -> NimbusError { NimbusError(.badRequest, reason) }
    /// A request over one of the server's limits.
    public static func limitExceeded(_ reason: String) -> NimbusError { NimbusError(.limitExceeded, reason) }
    /// A record that does not exist, or that the caller may not know exists.
    public static let recordNotFound = NimbusError(.unknownItem, "Record not found")
    /// A zone that does not exist, or that the caller may not know exists.
    public static let zoneNotFound = NimbusError(.zoneNotFound, "Zone not found")
    /// An operation the caller's role does not allow.
    public static func permissionFailure(_ reason: String) -> NimbusError { NimbusError(.permissionFailure, reason) }

    /// A ``Code/partialFailure`` for the items of a batch that failed, or `nil` when none did.
    /// - Parameter total: how many items the batch had, for the reason.
    public static func partialFailure(_ errors: [ItemID: NimbusError], of total: Int) -> NimbusError? {
        guard !errors.isEmpty else { return nil }
        var error = NimbusError(.partialFailure, "\(errors.count) of \(total) items failed")
        error.partialErrorsByItemID = errors
        return error
    }
}
