//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusStore
import Synchronization

/// Hands freshly written inbox entries to the connections of their recipients on this server
/// instance (WebSocket, long poll). Entries are in the inbox before they get here, so a
/// connection that misses one (it connected a moment later) finds it there.
public final class NotificationHub: Sendable {
    /// What a connection is handed.
    public enum Event: Sendable {
        /// An entry this instance just wrote.
        case entry(InboxEntry)
        /// Another instance wrote entries for the recipient: read them from the inbox.
        case written
    }

    /// One connection's feed of entries for one recipient.
    public struct Listener: Sendable {
        let id: Int
        let key: Key
        /// Events as entries are written, in sequence order per dispatch.
        public let events: AsyncStream<Event>
    }

    struct Key: Hashable, Sendable {
        var container: ContainerEnvironment
        var userRecordName: String
    }

    private struct State {
        var nextID = 0
        var listeners: [Key: [Int: AsyncStream<Event>.Continuation]] = [:]
        var count = 0
    }

    private let state = Mutex(State())
    /// Fires whenever entries were written, by this instance or (as far as it heard) another:
    /// what pushes entries to devices (APNs) waits on it.
    public let written = ChangeSignal()
    /// Fires with ``written``, for webhook delivery: a signal has one waiter, and APNs waits on
    /// the other.
    public let writtenForWebhooks = ChangeSignal()

    /// Creates an empty hub.
    public init() {}

    /// Starts a feed of the recipient's new entries; ``stopListening(_:)`` ends it.
    public func listen(to userRecordName: String, in container: ContainerEnvironment) -> Listener {
        let key = Key(container: container, userRecordName: userRecordName)
        // A slow connection keeps at most this many events waiting, the newest: the sequence
        // numbers then jump, and the connection reads what it missed from the inbox.
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1_000))
        let id = state.withLock { state in
            state.nextID += 1
            state.listeners[key, default: [:]][state.nextID] = continuation
            state.count += 1
            return state.nextID
        }
        return Listener(id: id, key: key, events: stream)
    }

    /// Ends a feed.
    public func stopListening(_ listener: Listener) {
        let continuation = state.withLock { state -> AsyncStream<Event>.Continuation? in
            guard let continuation = state.listeners[listener.key]?.removeValue(forKey: listener.id) else { return nil }
            if state.listeners[listener.key]?.isEmpty == true { state.listeners[listener.key] = nil }
            state.count -= 1
            return continuation
        }
        continuation?.finish()
    }

    /// How many feeds are open.
    public var listenerCount: Int { state.withLock { $0.count } }

    /// Hands entries to their recipients' feeds.
    public func publish(_ entries: [InboxEntry]) {
        guard !entries.isEmpty else { return }
        written.fire()
        writtenForWebhooks.fire()
        let deliveries = state.withLock { state -> [(AsyncStream<Event>.Continuation, InboxEntry)] in
            var deliveries: [(AsyncStream<Event>.Continuation, InboxEntry)] = []
            for entry in entries {
                let key = Key(container: entry.container, userRecordName: entry.userRecordName)
                for continuation in (state.listeners[key] ?? [:]).values { deliveries.append((continuation, entry)) }
            }
            return deliveries
        }
        for (continuation, entry) in deliveries { continuation.yield(.entry(entry)) }
    }

    /// Tells every feed to read its inbox: after a lapse in hearing from other instances.
    public func entriesMayBeMissing() {
        written.fire()
        writtenForWebhooks.fire()
        let continuations = state.withLock { state in state.listeners.values.flatMap(\.values) }
        for continuation in continuations { continuation.yield(.written) }
    }

    /// Tells the recipients' feeds that another instance wrote entries for them.
    public func entriesWritten(for recipients: [InboxRecipient]) {
        written.fire()
        writtenForWebhooks.fire()
        let continuations = state.withLock { state -> [AsyncStream<Event>.Continuation] in
            recipients.flatMap { recipient in
                (state.listeners[Key(container: recipient.container, userRecordName: recipient.userRecordName)] ?? [:]).values
            }
        }
        for continuation in continuations { continuation.yield(.written) }
    }
}
