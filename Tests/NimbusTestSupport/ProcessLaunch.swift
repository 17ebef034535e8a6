//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Synchronization

/// Runs child processes for tests.
///
/// Foundation's `Process.run()` on Linux crashed a suite run now and then (a bad pointer inside
/// its `memcpy`, in `sqlite3` runs of parallel tests), even with launches serialised. Commands
/// that run to completion therefore use `posix_spawn` directly; their output goes to temporary
/// files, so no pipe can fill and block the child. Long-running children that stream output
/// (the server under test) still use `Process`, started one at a time.
public enum ProcessLaunch {
    private static let lock = Mutex(())

    /// Runs `process.run()` while no other test is starting a process.
    public static func run(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }

    /// Runs `executable` with `arguments` to completion; returns its exit status and output.
    public static func runToCompletion(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = FileManager.default.temporaryDirectory
        let outPath = directory.appendingPathComponent("nimbus-test-\(UUID().uuidString).out").path
        let errPath = directory.appendingPathComponent("nimbus-test-\(UUID().uuidString).err").path
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A clean signal mask: a thread of the concurrency pool blocks SIGTERM and SIGALRM, and a
        // child inherits the mask of the thread that starts it.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot run \(executable): error \(spawned)"])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let stdout = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
        return (exitStatus, stdout, stderr)
    }
}
