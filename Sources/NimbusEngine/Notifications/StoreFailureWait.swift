//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// What a delivery loop (notification dispatch, APNs, webhooks) does after a pass that failed
/// on its store: waits a second, then runs the next pass without waiting for a signal.
///
/// The second is real time, not the loop's injected clock: it waits for a real database to
/// answer again, as a driver's own timers do, and a pass that failed must be tried again even
/// while a test's manual clock stands still (a loop waiting for its next poll would wait for
/// the test to move the clock, which it has no reason to).
enum StoreFailureWait {
    static let delay = Duration.seconds(1)

    static func wait() async {
        try? await Task.sleep(for: delay)
    }
}
