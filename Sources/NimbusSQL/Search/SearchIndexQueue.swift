//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// SQLite's token search index is written once per commit, from a queue.
///
/// The triggers on `records` (migration 16) do not write the FTS5 index `record_search`
/// themselves: they append each change to `search_index_queue`, in order. Before a group
/// commit commits, ``applyStatements`` replay the queue into the index and empty it, so every
/// committed state has an index that matches its records, and queries on the read connections
/// (which read committed data only) never see the queue. A token query on the write connection
/// itself (a notification rule's lookup) replays the queue first.
///
/// Why: FTS5 writes out the changes it holds in memory as a new index segment at every
/// savepoint and release, and every request in a group commit runs in a savepoint of its own
/// (``GroupCommitWriter``). Writing the index from the triggers made a segment per single-record
/// save, and the merges that follow; replaying the queue makes one per commit. A request that
/// rolls back to its savepoint takes its queued changes with it.
enum SearchIndexQueue {
    /// Replays the queued changes into the index, in the order they were made, then empties the
    /// queue. A removal is FTS5's `'delete'` command with the document the index holds; an
    /// addition has NULL there, which FTS5 takes as a plain insert.
    static let applyStatements = [
        """
        INSERT INTO record_search (record_search, rowid, search_document)
        SELECT CASE WHEN is_removal = 1 THEN 'delete' END, record_rowid, search_document
        FROM search_index_queue ORDER BY position
        """,
        "DELETE FROM search_index_queue",
    ]

    /// Replays the queue on `connection`, inside its open transaction.
    static func apply(on connection: any SQLConnection) async throws {
        for statement in applyStatements {
            try await connection.execute(statement)
        }
    }
}
