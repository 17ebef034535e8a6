//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

/// Waits until `task` ends or `limit` passes, whichever comes first; `true` if the task ended.
///
/// Shutdown code uses this to bound a wait on work it cancelled. A task group racing the task
/// against a timer would not do: a group waits for every child before it returns, so a task
/// that never ends would hold the caller after all. Here the caller is answered by whichever
/// settles first and the loser is left behind (the timer is stopped; a task that never ends
/// keeps one small watcher task waiting on it).
package func waitForEnd(of task: Task<Void, Never>, atMost limit: Duration) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let answer = FirstAnswer(continuation)
        let timer = Task {
            try? await Task.sleep(for: limit)
            answer.give(false)
        }
        Task {
            await task.value
            answer.give(true)
            timer.cancel()
        }
    }
}

/// Resumes a continuation with the first answer given; later answers are dropped.
private final class FirstAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<Bool, Never>?>

    init(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation = Mutex(continuation)
    }

    func give(_ answer: Bool) {
        continuation.withLock { $0.take() }?.resume(returning: answer)
    }
}
