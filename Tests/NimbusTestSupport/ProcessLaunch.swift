//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Synchronization

/// Runs child processes for tests, with `posix_spawn` rather than Foundation's `Process`.
///
/// `Process` on Linux crashed suite runs now and then when tests started processes in parallel:
/// a bad pointer inside `Process.run()`'s `memcpy`, and once inside libdispatch's event loop,
/// which `Process` uses to watch its children. Children here write their output to temporary
/// files (no pipe can fill and block them), start with a clean signal mask (a thread of the
/// concurrency pool blocks SIGTERM and SIGALRM, and a child inherits its starter's mask), and
/// are waited for by polling `waitpid` on their own pid, never blocking a thread of the pool.
///
/// A child inherits no descriptor but its standard three. SwiftNIO's sockets are not
/// close-on-exec, and a child that outlives its test (a PostgreSQL server restarted by `pg_ctl`,
/// say) would otherwise hold a copy of every socket the suite had open when it started: a
/// connection another test then closes stays open for its peer, which waits for an answer or
/// an end that never comes, and a server waiting for its connections to close never stops.
public final class ProcessLaunch: Sendable {
    /// The child's process ID.
    public let pid: pid_t
    private let outPath: String
    private let errPath: String
    /// The exit status once known: the code, or 128 + the signal that ended it.
    private let exit = Mutex<Int32?>(nil)

    private init(pid: pid_t, outPath: String, errPath: String) {
        self.pid = pid
        self.outPath = outPath
        self.errPath = errPath
    }

    deinit {
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
    }

    /// Starts `executable` (a path) with `arguments`.
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessLaunch {
        let directory = FileManager.default.temporaryDirectory
        let outPath = directory.appendingPathComponent("nimbus-test-\(UUID().uuidString).out").path
        let errPath = directory.appendingPathComponent("nimbus-test-\(UUID().uuidString).err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #if os(Linux)
            // Nothing else crosses into the child (see the type's comment); macOS gets the same
            // from POSIX_SPAWN_CLOEXEC_DEFAULT below.
            guard let closeFrom = Self.addCloseFrom, closeFrom(&actions, 3) == 0 else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot keep descriptors from \(executable)"])
            }
        #endif
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        #if canImport(Darwin)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        #endif
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
        return ProcessLaunch(pid: pid, outPath: outPath, errPath: errPath)
    }

    #if os(Linux)
        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
        /// Glibc module does not declare.
        private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(
                symbol,
                to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self
            )
        }()
    #endif

    /// Runs `executable` with `arguments` to completion; returns its exit status and output. A
    /// child still running after `timeout` is killed (status 137), so a hung one fails its
    /// test instead of holding the suite.
    public static func runToCompletion(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try start(executable, arguments, environment: environment)
        let status = await child.waitForExit(timeout: timeout)
        return (status, child.stdout, child.stderr)
    }

    /// What the child wrote to standard output so far.
    public var stdout: String { String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self) }
    /// What the child wrote to standard error so far.
    public var stderr: String { String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self) }

    /// Whether the child is still running (reaps it if it ended).
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits for the child to exit and returns its exit status; kills it after `timeout`, or
    /// when the waiting task is cancelled.
    ///
    /// It polls rather than blocking in `waitpid`: a blocked thread is lost to the concurrency
    /// pool, which has only as many threads as cores, and with two blocked the whole test
    /// process stands still.
    public func waitForExit(timeout: Duration = .seconds(120)) async -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let code = reap(blocking: false) { return code }
            if ContinuousClock.now >= deadline || Task.isCancelled {
                kill(pid, SIGKILL)
                // Killed, it is gone at once: this wait is short.
                return reap(blocking: true) ?? -1
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Sends a signal (SIGTERM by default).
    public func signal(_ number: Int32 = SIGTERM) {
        if exit.withLock({ $0 }) == nil { kill(pid, number) }
    }

    private func reap(blocking: Bool) -> Int32? {
        if let known = exit.withLock({ $0 }) { return known }
        var status: Int32 = 0
        var result: pid_t
        repeat {
            result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
        } while result == -1 && errno == EINTR
        guard result == pid else { return nil }
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exit.withLock { $0 = code }
        return code
    }
}
