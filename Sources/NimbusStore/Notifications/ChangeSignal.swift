//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

/// A level-triggered wake-up: a store ``fire()``s it after committing a change (its commit hook),
/// the dispatcher ``wait()``s.
/// Fires while nobody waits are remembered as one, so a wake-up is never lost and a burst of
/// writes costs the dispatcher one pass.
public final class ChangeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Creates a signal.
    public init() {}

    /// Wakes the waiter, or the next one to wait.
    public func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Whether it fired since the last wait returned: the next ``wait()`` returns at once.
    public var isPending: Bool { state.withLock { $0.pending } }

    /// Returns once the signal fired since the last wait (at once if it already had), or when
    /// the task is cancelled. One waiter at a time.
    public func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Returns once the signal fired (as ``wait()``) or `timeout` passed on `clock`, whichever
    /// is first.
    /// - Returns: whether the signal fired (or the task was cancelled) before the timeout.
    @discardableResult
    public func wait(atMost timeout: Duration, on clock: any NimbusClock) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.wait()
                return true
            }
            group.addTask {
                try? await clock.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
    }
}
