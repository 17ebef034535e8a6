//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
public import NimbusModel
public import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// CloudKit's push token endpoints and the web courier (long poll) they lead to.
///
/// `tokens/create` gives a signed-in user a token and the URL to poll with it: the URL is the
/// credential (browsers poll it without headers), so the server keeps only the token's hash.
/// Each poll answers the next notification after the last one that token delivered, waiting
/// for it if need be. A token nobody polls for the inbox retention is removed (the server's
/// hourly prune). `tokens/register` records an APNs device token for the user.
public struct WebCourier: Sendable {
    let tokens: any PushTokenStore
    let dispatcher: NotificationDispatcher
    let clock: any NimbusClock
    let logger: Logger

    /// How often a polled token is marked used, in milliseconds.
    static let touchInterval: Int64 = 3_600_000

    /// Creates the courier over a token store and the dispatcher whose inboxes it reads.
    /// - Parameter now: The clock, in milliseconds since 1970 (the store's).
    public init(
        tokens: any PushTokenStore,
        dispatcher: NotificationDispatcher,
        clock: any NimbusClock,
        logger: Logger = Logger(label: "nimbus.courier", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.logger = logger
        self.tokens = tokens
        self.dispatcher = dispatcher
        self.clock = clock
    }

    /// `tokens/create`: a new web courier token for the caller, starting after their latest
    /// notification. Returns the token, to be put in the courier URL.
    public func createToken(apnsEnvironment: String, caller: Caller) async throws(NimbusError) -> String {
        let user = try Self.user(of: caller)
        let container = ContainerEnvironment(container: caller.container, environment: caller.environment)
        let token = Credentials.makeAPIToken()
        try await run {
            let last = try await dispatcher.lastSequence(of: user, in: container)
            try await tokens.savePushToken(
                PushToken(
                    key: Credentials.hash(token),
                    kind: .webCourier,
                    container: container,
                    userRecordName: user,
                    apnsEnvironment: apnsEnvironment,
                    deliveredThrough: last
                )
            )
        }
        return token
    }

    /// `tokens/register`: ties an APNs device token to the caller, from their latest
    /// notification on. A token registered again (by the same or another user of the device)
    /// is replaced. The caller's device ID, if it sent one, keeps their own changes from being
    /// pushed to it.
    public func register(apnsToken: String, apnsEnvironment: String, caller: Caller) async throws(NimbusError) {
        let user = try Self.user(of: caller)
        guard let apnsToken = Self.deviceToken(apnsToken) else {
            throw .badRequest("apnsToken must be an APNs device token: 4 to 100 bytes, in hexadecimal or base64")
        }
        let container = ContainerEnvironment(container: caller.container, environment: caller.environment)
        try await run {
            let last = try await dispatcher.lastSequence(of: user, in: container)
            try await tokens.savePushToken(
                PushToken(
                    key: PushToken.apnsKey(apnsToken, in: container),
                    kind: .apns,
                    container: container,
                    userRecordName: user,
                    apnsEnvironment: apnsEnvironment,
                    deliveredThrough: last,
                    apnsToken: apnsToken,
                    deviceID: caller.deviceID
                )
            )
        }
    }

    /// One web courier poll: the next notification after the token's position, waiting up to
    /// `timeout` for one; `nil` when none came (the client polls again).
    /// - Throws: `.unknownItem` for a token the server does not know.
    public func poll(token: String, timeout: Duration) async throws(NimbusError) -> InboxEntry? {
        let key = Credentials.hash(token)
        guard let first = try await run({ try await tokens.pushToken(key) }), first.kind == .webCourier else {
            throw NimbusError(.unknownItem, "unknown web courier token")
        }
        // A token nobody polls for the inbox retention is removed: mark it used (hourly is enough).
        if clock.millisecondsSince1970 - first.lastUsedAt > Self.touchInterval { try await run { try await tokens.touchPushToken(key) } }
        // Listen first, so an entry written between the inbox read and the wait is not missed.
        let listener = dispatcher.hub.listen(to: first.userRecordName, in: first.container)
        defer { dispatcher.hub.stopListening(listener) }
        let deadline = clock.now.advanced(by: timeout)
        var position = first.deliveredThrough
        while true {
            let next = try await run {
                try await dispatcher.inbox(of: first.userRecordName, in: first.container, after: position, limit: 1)
            }.first
            if let next {
                // Two polls of one token must not both answer the same entry: the first to move
                // the position wins, the other reads on from where it now is.
                if try await run({ try await tokens.advancePushToken(key, from: position, through: next.sequence) }) { return next }
                position = try await run { try await tokens.pushToken(key) }?.deliveredThrough ?? next.sequence
                continue
            }
            guard await Self.wait(for: listener, until: deadline, on: clock) else { return nil }
        }
    }

    // MARK: - Private

    /// Waits for the listener's next event; false at the deadline.
    private static func wait(for listener: NotificationHub.Listener, until deadline: WallInstant, on clock: any NimbusClock) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var events = listener.events.makeAsyncIterator()
                return await events.next() != nil
            }
            group.addTask {
                try? await clock.sleep(until: deadline, tolerance: nil)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// A device token in the lowercase hexadecimal APNs addresses it by: apps send it in hex
    /// (as most do) or in base64 (as `Data` encodes in JSON).
    static func deviceToken(_ text: String) -> String? {
        let hexDigits = Array("0123456789abcdef")
        let lowered = text.lowercased()
        if lowered.count % 2 == 0, (8...200).contains(lowered.count), lowered.allSatisfy(hexDigits.contains) { return lowered }
        guard let bytes = Data(base64Encoded: text), (4...100).contains(bytes.count) else { return nil }
        return String(bytes.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0x0f)]] })
    }

    /// Whose inbox a push token follows: a signed-in user's, or a server-to-server key's.
    private static func user(of caller: Caller) throws(NimbusError) -> String {
        guard let recipient = caller.notificationRecipient else {
            throw NimbusError(.authenticationRequired, "push tokens belong to a signed-in user (ckWebAuthToken) or a server-to-server key")
        }
        return recipient
    }

    private func run<Result>(_ body: () async throws -> Result) async throws(NimbusError) -> Result {
        do {
            return try await body()
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }
}
