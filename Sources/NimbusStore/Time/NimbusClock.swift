//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The clock Nimbus reads the time from and sleeps on: ``SystemClock`` in a server, a manual
/// clock in tests, which moves only when the test moves it and wakes the sleepers it passes.
///
/// Every component that reads the time or waits for it takes one, so nothing measures or
/// waits on a clock of its own: a test of back-off or expiry moves the clock instead of
/// sleeping for real.
public protocol NimbusClock: Clock, Sendable where Instant == WallInstant {}

extension NimbusClock {
    /// The time in milliseconds since 1970-01-01 UTC.
    public var millisecondsSince1970: Int64 { now.millisecondsSince1970 }

    /// Sleeps for `duration` on this clock; throws `CancellationError` if the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now.advanced(by: duration), tolerance: nil)
    }
}

extension NimbusClock where Self == SystemClock {
    /// The system's wall clock.
    public static var system: SystemClock { SystemClock() }
}
