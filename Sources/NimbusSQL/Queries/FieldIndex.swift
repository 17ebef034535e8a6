//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// An index of `records` on the values a query filters or sorts on: fields read as one kind
/// (``SQLDialect/jsonScalar(column:path:as:)``), or system columns.
///
/// Its key is the tenant and zone, the record type, the values, and the record name, so a
/// query's equality prefix, its range on the last value, and its order by that value are all
/// one index range, read forwards or backwards. Most are on one value; a query that sorts by
/// one field and filters another by equality (the chat page: `chat = X`, newest `sent` first)
/// gets one on both, the equality first, so its page is a range however the zone's records
/// spread over chats. It holds only live records that have every value (`IS NOT NULL`): a
/// record without them costs it nothing, and both planners prove the predicate from the
/// query's comparisons on the values, or from the `IS NOT NULL` of a sorted query.
///
/// One index per list of expressions serves every container and record type: its write cost
/// grows with the fields a record has that some query uses, not with the number of schemas.
package struct FieldIndex: Hashable, Sendable {
    /// The SQL expressions indexed, exactly as queries spell them: planners match an index by
    /// the text of its expressions.
    package let expressions: [String]

    package init(expressions: [String]) {
        self.expressions = expressions
    }

    package init(expression: String) {
        self.init(expressions: [expression])
    }

    /// What every field index's name begins with.
    package static let namePrefix = "records_field_"

    /// The index's name: ``namePrefix`` and the 64-bit FNV-1a hash of its expressions, which
    /// fits PostgreSQL's 63-byte identifiers whatever the fields' names, and changes with the
    /// expressions' spelling, so expressions spelled anew get an index of their own.
    package var name: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in expressions.joined(separator: "\u{1F}").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return Self.namePrefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The indexed columns, for `CREATE INDEX ... ON records (...)`.
    package var columns: String {
        (["container, environment, owner, zone_name, record_type"] + expressions.map { "(\($0))" } + ["record_name"])
            .joined(separator: ", ")
    }

    /// The index's predicate, for `CREATE INDEX ... WHERE ...`.
    package var predicate: String {
        (["is_deleted = 0"] + expressions.map { "(\($0)) IS NOT NULL" }).joined(separator: " AND ")
    }
}
