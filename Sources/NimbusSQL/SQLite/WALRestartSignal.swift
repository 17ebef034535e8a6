//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

/// Tells the writer that the WAL should start over from its beginning.
///
/// Under sustained writes a `PASSIVE` checkpoint never finds the WAL idle, so SQLite never
/// rewinds it and the file grows without bound (160 MB in a few minutes of benchmark load),
/// and every frame written past its end costs the file system a fresh, zeroed block. The
/// checkpointer raises this once the WAL is past ``thresholdFrames`` and fully copied; the
/// writer, between two commits, then runs a `RESTART` checkpoint, which has little left to copy
/// and waits only for readers still on old frames.
final class WALRestartSignal: Sendable {
    /// About 64 MiB of 2 KiB pages. A restart costs the writer two `fdatasync`s (several
    /// milliseconds, every other writer waiting): at 16 MiB it came about four times a second
    /// under single-record saves, 4% of the writer's time.
    static let thresholdFrames: Int64 = 32768

    private let requested = Atomic<Bool>(false)

    /// Called by the checkpointer after each pass with the WAL's size and how much of it is copied.
    func checkpointed(logFrames: Int64, copiedFrames: Int64) {
        if logFrames >= Self.thresholdFrames && copiedFrames >= logFrames {
            requested.store(true, ordering: .relaxed)
        }
    }

    /// Whether a restart was asked for since the last call; clears the request.
    func take() -> Bool {
        requested.exchange(false, ordering: .relaxed)
    }
}
