//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusModel
import Synchronization

/// Writes log lines to standard error, rendering metadata only when a line is written.
///
/// swift-log's `StreamLogHandler` re-renders its metadata each time a logger's metadata is set.
/// The HTTP framework sets request metadata on every request, though at the default level
/// almost none of those requests writes a line, so that rendering was wasted work per request.
struct StandardErrorLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    private let label: String

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        // Values and messages can carry what clients sent: escaped, each line stays one line.
        let rendered =
            merged.isEmpty
            ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\(LogValue.escaped("\($0.value)"))" }.joined(separator: " ")
        var line = "\(Self.timestamp()) \(event.level) \(label):\(rendered) [\(event.source)] \(LogValue.escaped("\(event.message)"))\n"
        // One write(2) of the line's bytes, without FileHandle's Data copy: the access log
        // writes a line for every request.
        line.withUTF8 { bytes in
            var written = 0
            while written < bytes.count {
                let count = write(STDERR_FILENO, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                written += count
            }
        }
    }

    /// The second's ISO 8601 time, formatted once a second: formatting a date costs more than
    /// the rest of a line.
    private static func timestamp() -> String {
        let second = Int(Date().timeIntervalSince1970)
        return lastSecond.withLock { last in
            if last.second != second {
                last = (second, Date(timeIntervalSince1970: Double(second)).formatted(.iso8601))
            }
            return last.text
        }
    }

    private static let lastSecond = Mutex<(second: Int, text: String)>((-1, ""))
}
