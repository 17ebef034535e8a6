//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

/// Whether a store is open, running, or closed, and who waits for it to close.
///
/// A store's long-lived work runs inside ``SQLStore/run()``, which returns when its task is
/// cancelled (a service group shutting down) or the store is closed, whichever comes first.
final class StoreLifetime: Sendable {
    private struct State {
        var isClosed = false
        var isRunning = false
        /// Callers of ``waitUntilClosed()``, by a key that lets a cancelled one leave.
        var closeWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        /// Callers of ``waitUntilRunEnded()``.
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Marks the work as started; `false` if it runs already, or the store is closed.
    func start() -> Bool {
        state.withLock { state in
            guard !state.isRunning, !state.isClosed else { return false }
            state.isRunning = true
            return true
        }
    }

    /// Marks the work as ended, and wakes those waiting for it.
    func ended() {
        let waiters = state.withLock { state in
            state.isRunning = false
            defer { state.endWaiters = [] }
            return state.endWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Marks the store closed, and wakes those waiting for it; `false` if it was closed already.
    func close() -> Bool {
        let (first, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            guard !state.isClosed else { return (false, []) }
            state.isClosed = true
            defer { state.closeWaiters = [:] }
            return (true, Array(state.closeWaiters.values))
        }
        for waiter in waiters { waiter.resume() }
        return first
    }

    /// Returns once the store is closed or the calling task is cancelled.
    func waitUntilClosed() async {
        let key = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isClosed || Task.isCancelled { return true }
                    state.closeWaiters[key] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.closeWaiters.removeValue(forKey: key) }?.resume()
        }
    }

    /// Returns once the work is not running (at once if it never started).
    func waitUntilRunEnded() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                guard state.isRunning else { return true }
                state.endWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
