//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOCore
import Synchronization

/// Waits on PostgreSQL with the moment each is given up on: statements awaiting the server's
/// answer, and requests awaiting a pooled connection.
///
/// One sweep a fraction of a deadline apart (at most a second), from a repeated task on an
/// event loop, gives up on the overdue ones (``PostgresSQLConnection`` then fails the statement
/// and closes its connection; a request waiting for a connection is answered with an error). A
/// timer per wait would be a task scheduled on an event loop from the caller's thread (which
/// wakes the loop) and cancelled there, or a task sleeping on the cooperative pool, on every
/// statement and request; here a wait costs an entry in a dictionary, and is given up on at most
/// one sweep interval late.
final class DeadlineWatchdog: Sendable {
    private struct Entry {
        var deadline: ContinuousClock.Instant
        var expire: @Sendable () -> Void
    }

    /// A wait's entry, to take back when it ends.
    struct Watch: Sendable {
        fileprivate let id: UInt64
    }

    /// How long a wait may last.
    let deadline: Duration
    let sweepInterval: Duration
    private let waiting = Mutex<(next: UInt64, entries: [UInt64: Entry])>((0, [:]))

    init(deadline: Duration) {
        self.deadline = deadline
        sweepInterval = min(.seconds(1), deadline / 4)
    }

    /// Watches a wait that starts now: `expire` runs once, from a sweep, if ``release(_:)`` has
    /// not come by then.
    func watch(now: ContinuousClock.Instant = .now, expire: @escaping @Sendable () -> Void) -> Watch {
        waiting.withLock { state in
            state.next &+= 1
            state.entries[state.next] = Entry(deadline: now + deadline, expire: expire)
            return Watch(id: state.next)
        }
    }

    /// The wait ended in time.
    func release(_ watch: Watch) {
        _ = waiting.withLock { $0.entries.removeValue(forKey: watch.id) }
    }

    /// Gives up on the waits overdue at `now`.
    func sweep(now: ContinuousClock.Instant = .now) {
        let overdue = waiting.withLock { state -> [Entry] in
            let overdue = state.entries.filter { $0.value.deadline <= now }
            for id in overdue.keys { state.entries.removeValue(forKey: id) }
            return Array(overdue.values)
        }
        // Outside the lock: giving up closes connections, whose callbacks may release others.
        for entry in overdue { entry.expire() }
    }

    /// Sweeps every ``sweepInterval`` on `eventLoop` until the task returned is cancelled.
    func startSweeping(on eventLoop: any EventLoop) -> RepeatedTask {
        let interval = TimeAmount.nanoseconds(Int64(sweepInterval / .nanoseconds(1)))
        return eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [self] _ in sweep() }
    }
}
