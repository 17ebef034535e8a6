//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

/// Counts attempts per key (an account, a client address) in a sliding window and says when a
/// key has had too many.
///
/// Decision: kept in memory, per server instance. A guesser spread over several instances gets
/// the limit once per instance; codes carry their own limit in the store (five wrong tries end
/// a code), so a code can never be guessed faster than that whatever the instance count.
final class AttemptThrottle: Sendable {
    private struct Window {
        var times: [Int64] = []
    }

    /// Attempts allowed per key within `window` milliseconds.
    let limit: Int
    let window: Int64
    private let windows = Mutex<[String: Window]>([:])

    init(limit: Int, window: Int64) {
        self.limit = limit
        self.window = window
    }

    /// How many milliseconds `key` must wait before its next attempt, or `nil` if it may go on.
    func wait(for key: String, at now: Int64) -> Int64? {
        windows.withLock { windows in
            guard let times = windows[key]?.times.filter({ now - $0 < window }), times.count >= limit else { return nil }
            return times[times.count - limit] + window - now
        }
    }

    /// Counts an attempt by `key`.
    func record(_ key: String, at now: Int64) {
        windows.withLock { windows in
            if windows.count > 100_000 {
                // Keys whose attempts have all left the window count for nothing: dropping them
                // bounds the memory a flood of addresses can take.
                windows = windows.filter { $0.value.times.contains { now - $0 < window } }
            }
            var times = windows[key]?.times.filter { now - $0 < window } ?? []
            times.append(now)
            windows[key] = Window(times: times)
        }
    }

    /// Forgets `key`'s attempts (a correct password).
    func reset(_ key: String) {
        _ = windows.withLock { $0.removeValue(forKey: key) }
    }
}
