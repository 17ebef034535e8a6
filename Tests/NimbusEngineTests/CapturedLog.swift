//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import Synchronization

/// The log lines a test's engine wrote, with their metadata.
final class CapturedLog: Sendable {
    struct Entry: Sendable {
        var message: String
        var metadata: [String: String]
    }

    private let entries = Mutex<[Entry]>([])

    func append(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
    }

    /// The metadata value of the latest entry that has `key`.
    func latest(_ key: String) -> String? {
        entries.withLock { entries in entries.last { $0.metadata[key] != nil }?.metadata[key] }
    }
}

/// Sends a logger's lines to a ``CapturedLog``.
struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var values: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) { values[key] = "\(value)" }
        log.append(CapturedLog.Entry(message: "\(event.message)", metadata: values))
    }
}
