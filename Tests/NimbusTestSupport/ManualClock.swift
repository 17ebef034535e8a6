//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusStore
import Synchronization

/// A clock that moves only when a test moves it (``advance(by:)``), waking the sleepers whose
/// deadline it passes.
///
/// A test of a loop that sleeps (a back-off, a poll, a pruner's interval) waits until the loop
/// sleeps (``waitForSleepers(_:)``), moves the clock past the deadline, and the loop runs on at
/// once: nothing in the test waits for real time to pass.
public final class ManualClock: NimbusClock {
    private struct Sleeper {
        let deadline: WallInstant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: WallInstant
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeper = 0
        /// Callers of ``waitForSleepers(_:)`` and ``waitForSleeper(until:)``, with what each
        /// waits for.
        var sleeperWaiters: [(condition: @Sendable ([WallInstant]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    /// A clock at `start` (by default 2023-11-14, a fixed time, so tests are reproducible).
    public init(start: WallInstant = WallInstant(millisecondsSince1970: 1_700_000_000_000)) {
        state = Mutex(State(now: start))
    }

    public var now: WallInstant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .milliseconds(1) }

    /// The time in milliseconds since 1970 (a shorthand for `now.millisecondsSince1970`).
    public var milliseconds: Int64 { now.millisecondsSince1970 }

    public func sleep(until deadline: WallInstant, tolerance: Duration?) async throws {
        let key = state.withLock { state in
            defer { state.nextSleeper += 1 }
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, woken) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[key] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, Self.satisfiedWaiters(&state))
                }
                for waiter in woken { waiter.resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: key) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration`, and wakes every sleeper whose deadline it reaches.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for key in due.keys { state.sleepers[key] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks sleep on the clock: the event a test waits for
    /// before it moves the clock past their deadlines.
    public func waitForSleepers(_ count: Int = 1) async {
        await waitForSleepers { $0.count >= count }
    }

    /// Returns once a task sleeps on the clock until exactly `deadline`: the event a test
    /// waits for when it knows when one task's wait ends, whatever other tasks sleep.
    public func waitForSleeper(until deadline: WallInstant) async {
        await waitForSleepers { $0.contains(deadline) }
    }

    private func waitForSleepers(where condition: @escaping @Sendable ([WallInstant]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if condition(state.sleepers.values.map(\.deadline)) { return true }
                state.sleeperWaiters.append((condition, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func satisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let deadlines = state.sleepers.values.map(\.deadline)
        var ready: [CheckedContinuation<Void, Never>] = []
        state.sleeperWaiters.removeAll { waiter in
            guard waiter.condition(deadlines) else { return false }
            ready.append(waiter.continuation)
            return true
        }
        return ready
    }
}
