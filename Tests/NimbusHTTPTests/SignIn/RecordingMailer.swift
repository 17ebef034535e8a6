//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import Synchronization

/// A mailer that keeps what the server sends, for tests to read codes from: it stands where
/// the SMTP client stands, so the mail is what the server composed.
final class RecordingMailer: Mailer {
    private struct State {
        var sent: [MailMessage] = []
        var waiters: [(id: Int, address: String, continuation: CheckedContinuation<MailMessage?, Never>)] = []
        var nextWaiter = 0
        var taken: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func send(_ message: MailMessage) async throws {
        state.withLock { state in
            state.sent.append(message)
            if let index = state.waiters.firstIndex(where: { $0.address == message.to }) {
                let waiter = state.waiters.remove(at: index)
                state.taken[message.to, default: 0] += 1
                waiter.continuation.resume(returning: message)
            }
        }
    }

    /// Every message sent so far.
    var sent: [MailMessage] { state.withLock { $0.sent } }

    /// The next message to `address` not yet taken by this method: one already sent, or the
    /// next one the server sends (the outbox sends in the background). Gives up after 10
    /// seconds, so a mail that never comes fails the test instead of hanging it.
    func next(to address: String) async throws -> MailMessage {
        let address = address.lowercased()
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let message = await withTaskGroup(of: MailMessage?.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    self.state.withLock { state in
                        let mine = state.sent.filter { $0.to == address }
                        let taken = state.taken[address, default: 0]
                        if mine.count > taken {
                            state.taken[address] = taken + 1
                            continuation.resume(returning: mine[taken])
                        } else {
                            state.waiters.append((id, address, continuation))
                        }
                    }
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                // Still waiting: give up.
                let waiter = self.state.withLock { state in
                    state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
                }
                waiter?.continuation.resume(returning: nil)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let message else { throw FixtureFailure("no mail to \(address) came within 10 seconds") }
        return message
    }

    /// The six-digit code a message carries.
    static func code(in message: MailMessage) -> String? {
        guard let range = message.subject.range(of: "Your code: ") else { return nil }
        return String(message.subject[range.upperBound...])
    }
}
