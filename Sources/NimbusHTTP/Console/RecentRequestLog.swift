//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
import NimbusModel
import Synchronization

/// The server's latest log lines that name a request (`nimbus.request`), kept in memory so the
/// console finds a request's lines by the UUID a client saw in an error, without a log store.
///
/// It holds at most ``capacity`` lines, dropping the oldest: a few minutes of a busy server's
/// access log, hours of a quiet one's. Log lines never hold secrets (see docs/operations.md),
/// so keeping them is no new exposure; only operators see them.
public final class RecentRequestLog: Sendable {
    /// One kept line.
    public struct Line: Sendable {
        /// When, in milliseconds since 1970.
        public var at: Int64
        /// Its level.
        public var level: Logger.Level
        /// Its message.
        public var message: String
        /// Its metadata, but the request's ID.
        var fields: Logger.Metadata

        /// Its metadata, rendered as `key=value`, sorted: only when a page shows it, not on
        /// the request's way.
        public var metadata: String {
            fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    /// The most lines kept.
    public let capacity: Int
    private let now: @Sendable () -> Int64
    private let state: Mutex<(lines: [String: [Line]], order: [String])>

    /// Creates an empty log.
    public init(capacity: Int = 20_000, now: @escaping @Sendable () -> Int64) {
        self.capacity = capacity
        self.now = now
        state = Mutex(([:], []))
    }

    /// The lines of a request, oldest first.
    public func lines(ofRequest id: String) -> [Line] {
        state.withLock { $0.lines[id.lowercased()] ?? [] }
    }

    func record(request id: String, level: Logger.Level, message: String, metadata: Logger.Metadata) {
        var fields = metadata
        fields[LogKey.request] = nil
        let line = Line(at: now(), level: level, message: message, fields: fields)
        state.withLock { state in
            state.lines[id.lowercased(), default: []].append(line)
            state.order.append(id.lowercased())
            if state.order.count > capacity {
                // Drop the oldest tenth at once: one shift of the array per many lines.
                let dropped = state.order.prefix(capacity / 10)
                state.order.removeFirst(dropped.count)
                for key in dropped {
                    state.lines[key]?.removeFirst()
                    if state.lines[key]?.isEmpty == true { state.lines[key] = nil }
                }
            }
        }
    }

    /// A log handler that keeps the lines naming a request here; put it beside the server's
    /// own handler (`MultiplexLogHandler`).
    public func handler(level: Logger.Level) -> some LogHandler {
        Handler(log: self, logLevel: level)
    }

    private struct Handler: LogHandler {
        let log: RecentRequestLog
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged = metadata
            if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
            if let extra = event.metadata { merged.merge(extra) { _, new in new } }
            guard let request = merged[LogKey.request] else { return }
            log.record(request: "\(request)", level: event.level, message: "\(event.message)", metadata: merged)
        }
    }
}
