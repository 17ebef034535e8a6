//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// SQLite's token search index is written from a queue, many changes at a time.
///
/// The triggers on `records` (migration 16) do not write the FTS5 index `record_search`
/// themselves: they append each change to `search_index_queue`, in order. Once the queue holds
/// ``replayThreshold`` changes, the group commit that finds it so replays them into the index
/// before it commits (``replayWhenFullStatements``), and empties it. Until then a token search
/// reads both: the index for records with no queued change, and the record's own search
/// document for those with one (`SQLDialect.searchMatch`). So every committed state answers
/// token searches as if the index held all of it, on the read connections (which read committed
/// data only) and on the write connection inside a group alike.
///
/// Why: FTS5 writes out the changes it holds in memory as a new index segment at every
/// savepoint and release and at every commit, and a segment costs about as much to write for
/// one document as for dozens, with the merges that follow. Writing the index from the triggers
/// made a segment per single-record save; replaying the queue at every commit made one per
/// group, and a group often holds a single save. A request that rolls back to its savepoint
/// takes its queued changes with it.
enum SearchIndexQueue {
    /// How many queued changes make a group commit replay the queue. The queue's positions count
    /// up from 1 after each replay (SQLite gives a new row the largest rowid plus one), so its
    /// largest position is its length. A token search reads every queued change once, so this
    /// also bounds what a search pays for the queue.
    static let replayThreshold = 64

    /// Replays the queued changes into the index, in the order they were made, then empties the
    /// queue.
    static let applyStatements = replayStatements(when: nil)

    /// ``applyStatements`` when the queue holds at least ``replayThreshold`` changes; otherwise
    /// statements that change nothing.
    static let replayWhenFullStatements = replayStatements(
        when: "(SELECT max(position) FROM search_index_queue) >= \(replayThreshold)"
    )

    /// The replay, if `condition` holds. A removal is FTS5's `'delete'` command with the
    /// document the index holds; an addition has NULL there, which FTS5 takes as a plain insert.
    /// Both statements see the same queue: the first does not change it.
    private static func replayStatements(when condition: String?) -> [String] {
        let filter = condition.map { " WHERE \($0)" } ?? ""
        return [
            """
            INSERT INTO record_search (record_search, rowid, search_document)
            SELECT CASE WHEN is_removal = 1 THEN 'delete' END, record_rowid, search_document
            FROM search_index_queue\(filter) ORDER BY position
            """,
            "DELETE FROM search_index_queue\(filter)",
        ]
    }

    /// Replays the queue on `connection`, inside its open transaction.
    static func apply(on connection: any SQLConnection) async throws {
        for statement in applyStatements {
            try await connection.execute(statement)
        }
    }
}
