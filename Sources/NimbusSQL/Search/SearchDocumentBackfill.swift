//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// Gives records stored before token search their search documents (migration 15).
///
/// Walks the live records in primary-key order, a page at a time, so a large store is read in
/// bounded memory; only records with text get an `UPDATE`.
enum SearchDocumentBackfill {
    private static let pageSize = 500

    static func run(_ connection: any SQLConnection) async throws {
        var after: [SQLValue]?
        while true {
            let position = after.map { _ in "AND (container, environment, owner, zone_name, record_name) > (?, ?, ?, ?, ?)" } ?? ""
            let rows = try await connection.query(
                """
                SELECT container, environment, owner, zone_name, record_name, fields FROM records
                WHERE is_deleted = 0 \(position)
                ORDER BY container, environment, owner, zone_name, record_name
                LIMIT ?
                """,
                (after ?? []) + [.integer(Int64(pageSize))]
            )
            for row in rows {
                let fields = try FieldValue.read(fields: try JSONParser.parse(Array(row.string(5).utf8)), at: "fields")
                guard let document = SearchTokens.document(of: fields) else { continue }
                try await connection.execute(
                    """
                    UPDATE records SET search_document = ?
                    WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND record_name = ?
                    """,
                    [.text(document)] + Array(row.values[0..<5])
                )
            }
            guard rows.count == pageSize, let last = rows.last else { return }
            after = Array(last.values[0..<5])
        }
    }
}
