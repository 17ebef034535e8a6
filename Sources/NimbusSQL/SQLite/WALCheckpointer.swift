//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import CSQLite
import Foundation
import Synchronization

/// Moves committed pages from the WAL into the database file, on a thread of its own.
///
/// SQLite normally checkpoints inside the commit that pushes the WAL past 1,000 pages: that
/// commit then copies pages and calls `fdatasync` while every other writer waits. The server's
/// write connection turns that off, and this checkpointer runs `PASSIVE` checkpoints (which
/// never block readers or the writer) from its own connection on a dedicated thread, so the
/// cooperative threads that serve requests never wait on the disk for it. SQLite's final
/// checkpoint when the last connection closes leaves a short WAL for the next start.
final class WALCheckpointer: Sendable {
    private let path: String
    private let interval: Duration
    private let isStopped = Atomic<Bool>(false)
    private let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let done = Atomic<Bool>(false)
    private let restartSignal: WALRestartSignal

    init(path: String, restartSignal: WALRestartSignal, interval: Duration = .milliseconds(200)) {
        self.path = path
        self.restartSignal = restartSignal
        self.interval = interval
    }

    /// Starts the checkpoint thread.
    func start() throws {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        let box = ConnectionBox(connection: connection)
        let thread = Thread { [self] in
            let milliseconds = UInt32(max(1, interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000))
            while !isStopped.load(ordering: .relaxed) {
                usleep(milliseconds * 1000)
                // The row is (busy, frames in the WAL, frames copied to the database).
                if let row = try? box.connection.query("PRAGMA wal_checkpoint(PASSIVE)", []).first {
                    restartSignal.checkpointed(logFrames: row.int(1), copiedFrames: row.int(2))
                }
            }
            // One last pass; PASSIVE so that closing never waits for another process's readers
            // (the admin CLI closes while the server keeps serving).
            try? box.connection.executeScript("PRAGMA wal_checkpoint(PASSIVE)")
            box.connection.close()
            done.store(true, ordering: .releasing)
            finished.withLock { $0?.resume() }
        }
        thread.name = "nimbus-wal-checkpoint"
        thread.start()
    }

    /// Stops the thread after a final checkpoint, and waits for it.
    func stop() async {
        isStopped.store(true, ordering: .relaxed)
        await withCheckedContinuation { continuation in
            let alreadyDone = finished.withLock { waiting -> Bool in
                if done.load(ordering: .acquiring) { return true }
                waiting = continuation
                return false
            }
            if alreadyDone { continuation.resume() }
        }
    }

    /// The connection crosses to the checkpoint thread once and is used only there.
    private struct ConnectionBox: @unchecked Sendable {
        let connection: SQLiteConnection
    }
}
