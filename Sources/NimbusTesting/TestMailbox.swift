//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusEngine
import NimbusModel
import Synchronization

/// A mail server in a test: it keeps what the server sends (sign-up and sign-in codes), for the
/// test to read as a person reads their inbox. It stands where the SMTP client stands, so each
/// message is the one the server composed.
///
/// ```swift
/// try await container.signUp(email: "ann@example.com", password: "a long password", name: "Ann")
/// let code = try await nimbus.mail.code(to: "ann@example.com")
/// try await container.verify(email: "ann@example.com", code: code)
/// ```
public final class TestMailbox: Mailer {
    private struct State {
        var sent: [MailMessage] = []
        var waiters: [(id: Int, address: String, continuation: CheckedContinuation<MailMessage?, Never>)] = []
        var nextWaiter = 0
        var taken: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// Creates an empty mailbox.
    public init() {}

    public func send(_ message: MailMessage) async throws {
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
    public var sent: [MailMessage] { state.withLock { $0.sent } }

    /// The next message to `address` not yet taken by this method: one already sent, or the
    /// next one the server sends (the outbox sends in the background). Gives up after 10
    /// seconds, so a mail that never comes fails the test instead of hanging it.
    public func next(to address: String) async throws -> MailMessage {
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
        guard let message else { throw NimbusError(.serviceUnavailable, "no mail to \(address) came within 10 seconds") }
        return message
    }

    /// The code of the next message to `address` (see ``next(to:)``).
    /// - Throws: if no message comes, or it carries no code.
    public func code(to address: String) async throws -> String {
        let message = try await next(to: address)
        guard let code = Self.code(in: message) else { throw NimbusError(.internalError, "the mail to \(address) has no code: \(message.subject)") }
        return code
    }

    /// The six-digit code a message carries, if any.
    public static func code(in message: MailMessage) -> String? {
        let prefix = "Your code: "
        guard message.subject.hasPrefix(prefix) else { return nil }
        return String(message.subject.dropFirst(prefix.count))
    }
}
