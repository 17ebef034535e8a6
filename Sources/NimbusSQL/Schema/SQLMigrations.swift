//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The versioned schema of the store, applied in order by ``migrate(_:dialect:)``.
///
/// Every table of tenant data is keyed by container, environment and owner first, and nothing
/// refers across tenants, so a tenant's rows can be moved or sharded as a unit. Ordering comes
/// from per-zone counters, never from a global sequence.
enum SQLMigrations {
    /// One schema version: the statements that bring the previous version to it, and work
    /// that SQL alone cannot do, run after them in the same transaction.
    struct Migration: Sendable {
        var version: Int64
        var statements: @Sendable (SQLDialect) -> [String]
        var backfill: (@Sendable (any SQLConnection) async throws -> Void)?

        init(
            version: Int64,
            backfill: (@Sendable (any SQLConnection) async throws -> Void)? = nil,
            statements: @escaping @Sendable (SQLDialect) -> [String]
        ) {
            self.version = version
            self.statements = statements
            self.backfill = backfill
        }
    }

    static let all: [Migration] = [
        Migration(version: 1) { dialect in
            [
                """
                CREATE TABLE containers (
                    container TEXT NOT NULL, environment TEXT NOT NULL, created_at BIGINT NOT NULL,
                    PRIMARY KEY (container, environment))
                """,
                """
                CREATE TABLE api_tokens (
                    token_hash TEXT PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL,
                    created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE users (
                    container TEXT NOT NULL, user_record_name TEXT NOT NULL, name TEXT NOT NULL,
                    email TEXT, phone TEXT, is_developer BIGINT NOT NULL DEFAULT 0, created_at BIGINT NOT NULL,
                    PRIMARY KEY (container, user_record_name))
                """,
                """
                CREATE TABLE web_auth_tokens (
                    token_hash TEXT PRIMARY KEY, container TEXT NOT NULL, user_record_name TEXT NOT NULL,
                    issued_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, lifetime BIGINT NOT NULL)
                """,
                """
                CREATE TABLE server_keys (
                    key_id TEXT PRIMARY KEY, container TEXT NOT NULL, public_key_pem TEXT NOT NULL,
                    user_record_name TEXT NOT NULL, created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE record_fields (
                    container TEXT NOT NULL, environment TEXT NOT NULL, record_type TEXT NOT NULL,
                    field_name TEXT NOT NULL, field_type TEXT NOT NULL, is_encrypted BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, record_type, field_name))
                """,
                """
                CREATE TABLE zones (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    change_counter BIGINT NOT NULL, incarnation BIGINT NOT NULL, is_deleted BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, owner, zone_name))
                """,
                """
                CREATE TABLE records (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    record_name TEXT NOT NULL, record_type TEXT NOT NULL, change_counter BIGINT NOT NULL,
                    change_tag TEXT NOT NULL, parent_name TEXT, fields \(dialect.jsonType) NOT NULL,
                    encrypted_fields \(dialect.blobType), created_at BIGINT NOT NULL, created_by TEXT NOT NULL,
                    created_device TEXT NOT NULL, modified_at BIGINT NOT NULL, modified_by TEXT NOT NULL,
                    modified_device TEXT NOT NULL, is_deleted BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, owner, zone_name, record_name))
                """,
                """
                CREATE INDEX records_by_change
                    ON records (container, environment, owner, zone_name, change_counter)
                """,
                // No record name in the key: new records append to their type's range instead of
                // landing on a random page.
                """
                CREATE INDEX records_by_type
                    ON records (container, environment, owner, zone_name, record_type, is_deleted)
                """,
                // Partial: most records have no parent, and they cost this index nothing.
                """
                CREATE INDEX records_by_parent
                    ON records (container, environment, owner, zone_name, parent_name) WHERE parent_name IS NOT NULL
                """,
                """
                CREATE TABLE record_references (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    target_name TEXT NOT NULL, source_name TEXT NOT NULL, action TEXT NOT NULL,
                    PRIMARY KEY (container, environment, owner, zone_name, target_name, source_name))
                """,
                """
                CREATE INDEX record_references_by_source
                    ON record_references (container, environment, owner, zone_name, source_name)
                """,
            ]
        },
        Migration(version: 2) { dialect in
            [
                // The database change feed: one counter per tenant, bumped by every transaction
                // that changes a zone, and each zone's position in it.
                """
                CREATE TABLE databases (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL,
                    change_counter BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, owner))
                """,
                "ALTER TABLE zones ADD COLUMN database_counter BIGINT NOT NULL DEFAULT 0",
                // The change counter of the last tombstone pruned: feed positions before it are refused.
                "ALTER TABLE zones ADD COLUMN pruned_through BIGINT NOT NULL DEFAULT 0",
                """
                CREATE INDEX zones_by_database_change
                    ON zones (container, environment, owner, database_counter)
                """,
                // For the pruner, which works across tenants (each shard prunes its own rows). It
                // covers what the pruner reads, so pruning never touches live records.
                """
                CREATE INDEX records_tombstones_by_time
                    ON records (modified_at, container, environment, owner, zone_name, change_counter, record_name, is_deleted)
                    WHERE is_deleted = 1
                """,
                // Zones from version 1 enter the database feed, so a client syncing from scratch
                // finds them (the default zone once it holds a record, as for new zones).
                """
                INSERT INTO databases (container, environment, owner, change_counter)
                SELECT container, environment, owner, 1 FROM zones GROUP BY container, environment, owner
                """,
                """
                UPDATE zones SET database_counter = 1
                WHERE is_deleted = 0 AND (zone_name <> '_defaultZone' OR change_counter > 0)
                """,
                // Version 1 left the time of the last save on tombstones; the pruner needs the
                // time of the delete. Now is the closest safe value: no recent delete is pruned early.
                "UPDATE records SET modified_at = \(dialect.currentTimeMilliseconds) WHERE is_deleted = 1",
            ]
        },
        // Users are found by email address and phone number, in a normal form (LookupInfo).
        Migration(version: 3) { _ in
            [
                "UPDATE users SET email = lower(trim(email)) WHERE email IS NOT NULL",
                """
                UPDATE users SET phone = replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''), '.', ''), '(', ''), ')', '')
                WHERE phone IS NOT NULL
                """,
                "CREATE INDEX users_by_email ON users (container, email) WHERE email IS NOT NULL",
                "CREATE INDEX users_by_phone ON users (container, phone) WHERE phone IS NOT NULL",
            ]
        },
        // Sharing: shares beside their share records, participants, and records that left a
        // share (for participants' change feeds). See docs/proposals/0001-sharing-storage.md.
        Migration(version: 4) { _ in
            [
                // The share whose hierarchy holds the record, and whether the record is its root.
                "ALTER TABLE records ADD COLUMN share_name TEXT",
                "ALTER TABLE records ADD COLUMN is_share_root BIGINT NOT NULL DEFAULT 0",
                """
                CREATE INDEX records_by_share
                    ON records (container, environment, owner, zone_name, share_name, change_counter)
                    WHERE share_name IS NOT NULL
                """,
                """
                CREATE TABLE shares (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    share_name TEXT NOT NULL, root_name TEXT, short_guid TEXT NOT NULL,
                    public_permission TEXT NOT NULL, requests_enabled BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, owner, zone_name, share_name))
                """,
                // Invitations name the share by short GUID alone: it is unique across tenants.
                "CREATE UNIQUE INDEX shares_by_short_guid ON shares (short_guid)",
                """
                CREATE TABLE share_participants (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    share_name TEXT NOT NULL, participant_id TEXT NOT NULL, position BIGINT NOT NULL,
                    user_record_name TEXT, lookup_kind TEXT, lookup_value TEXT,
                    role TEXT NOT NULL, permission TEXT NOT NULL, acceptance TEXT NOT NULL,
                    PRIMARY KEY (container, environment, owner, zone_name, share_name, participant_id))
                """,
                // "Which shares did this user accept": the shared database's zones and access.
                """
                CREATE INDEX share_participants_by_user
                    ON share_participants (container, environment, user_record_name, owner, zone_name)
                    WHERE user_record_name IS NOT NULL
                """,
                """
                CREATE TABLE share_exits (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    share_name TEXT NOT NULL, change_counter BIGINT NOT NULL, record_name TEXT NOT NULL,
                    PRIMARY KEY (container, environment, owner, zone_name, share_name, change_counter, record_name))
                """,
            ]
        },
        // Addresses users proved they control, and the one-time codes that prove them.
        Migration(version: 5) { _ in
            [
                """
                CREATE TABLE user_contacts (
                    container TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL,
                    user_record_name TEXT NOT NULL, verified_at BIGINT NOT NULL,
                    PRIMARY KEY (container, kind, value))
                """,
                "CREATE INDEX user_contacts_by_user ON user_contacts (container, user_record_name)",
                """
                CREATE TABLE contact_verifications (
                    container TEXT NOT NULL, user_record_name TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL,
                    code_hash TEXT NOT NULL, expires_at BIGINT NOT NULL, failed_attempts BIGINT NOT NULL,
                    PRIMARY KEY (container, user_record_name, kind, value))
                """,
            ]
        },
        // Per-container settings an operator chooses (share landing pages link to the app).
        Migration(version: 6) { _ in
            [
                """
                CREATE TABLE container_settings (
                    container TEXT PRIMARY KEY, app_url_scheme TEXT, fallback_url TEXT)
                """
            ]
        },
        // Subscriptions, the notification outbox (one row per committed write to a zone, keyed
        // by the zone counter it ended at: no global sequence), and per-recipient inboxes.
        Migration(version: 7) { _ in
            [
                """
                CREATE TABLE subscriptions (
                    container TEXT NOT NULL, environment TEXT NOT NULL, database_scope TEXT NOT NULL,
                    user_record_name TEXT NOT NULL, subscription_id TEXT NOT NULL, kind TEXT NOT NULL,
                    record_type TEXT, body TEXT NOT NULL, created_at BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, database_scope, user_record_name, subscription_id))
                """,
                // The public database's query subscriptions are found by record type.
                """
                CREATE INDEX subscriptions_by_record_type
                    ON subscriptions (container, environment, database_scope, record_type)
                    WHERE record_type IS NOT NULL
                """,
                """
                CREATE TABLE change_events (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    counter_through BIGINT NOT NULL, counter_from BIGINT NOT NULL, body TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, owner, zone_name, counter_through))
                """,
                "CREATE INDEX change_events_by_age ON change_events (created_at)",
                // The exits of one write, read by zone counter range.
                "CREATE INDEX share_exits_by_change ON share_exits (container, environment, owner, zone_name, change_counter)",
                """
                CREATE TABLE notification_sequences (
                    container TEXT NOT NULL, environment TEXT NOT NULL, user_record_name TEXT NOT NULL,
                    last_sequence BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, user_record_name))
                """,
                """
                CREATE TABLE notification_inbox (
                    container TEXT NOT NULL, environment TEXT NOT NULL, user_record_name TEXT NOT NULL,
                    sequence BIGINT NOT NULL, notification_id TEXT NOT NULL, origin_device TEXT,
                    payload TEXT NOT NULL, created_at BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, user_record_name, sequence))
                """,
                "CREATE INDEX notification_inbox_by_age ON notification_inbox (created_at)",
            ]
        },
        // Push tokens: web courier (long poll) tokens, stored hashed since the URL is the only
        // credential, and APNs device tokens registered by signed-in users.
        Migration(version: 8) { _ in
            [
                """
                CREATE TABLE push_tokens (
                    token_key TEXT PRIMARY KEY, kind TEXT NOT NULL, container TEXT NOT NULL, environment TEXT NOT NULL,
                    user_record_name TEXT NOT NULL, apns_environment TEXT NOT NULL, apns_token TEXT,
                    delivered_through BIGINT NOT NULL, created_at BIGINT NOT NULL)
                """,
                """
                CREATE INDEX push_tokens_by_user ON push_tokens (container, environment, user_record_name)
                """,
            ]
        },
        // APNs delivery: an APNs token is unique per container and environment and remembers the
        // device that registered it (its own changes are not pushed back to it), its failures and
        // when to try again, and a lease that keeps two instances from pushing the same entries.
        // Inbox entries carry the collapse ID their pushes send.
        Migration(version: 9) { _ in
            [
                "ALTER TABLE push_tokens ADD COLUMN device_id TEXT",
                "ALTER TABLE push_tokens ADD COLUMN failures BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE push_tokens ADD COLUMN next_attempt_at BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE push_tokens ADD COLUMN claimed_until BIGINT NOT NULL DEFAULT 0",
                """
                UPDATE push_tokens SET apns_token = substr(token_key, 6),
                    token_key = 'apns:' || container || '/' || environment || '/' || substr(token_key, 6)
                WHERE kind = 'apns'
                """,
                "CREATE INDEX push_tokens_due ON push_tokens (kind, next_attempt_at)",
                "ALTER TABLE notification_inbox ADD COLUMN collapse_id TEXT",
            ]
        },
        // When a push token was last used: web courier tokens nobody polls for the inbox
        // retention are removed; a user keeps at most the 100 most recently used of each kind.
        Migration(version: 10) { _ in
            [
                "ALTER TABLE push_tokens ADD COLUMN last_used_at BIGINT NOT NULL DEFAULT 0",
                "UPDATE push_tokens SET last_used_at = created_at",
            ]
        },
        // Index markings of fields: production queries may filter only on queryable fields,
        // sort only by sortable ones. Fields that existed before keep working: every one gets
        // the indexes it can have.
        Migration(version: 11) { _ in
            [
                "ALTER TABLE record_fields ADD COLUMN is_queryable BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE record_fields ADD COLUMN is_sortable BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE record_fields ADD COLUMN is_searchable BIGINT NOT NULL DEFAULT 0",
                "UPDATE record_fields SET is_queryable = 1 - is_encrypted",
                """
                UPDATE record_fields SET is_sortable = 1
                WHERE is_encrypted = 0 AND field_type IN ('STRING', 'INT64', 'DOUBLE', 'TIMESTAMP', 'REFERENCE', 'BYTES')
                """,
                "UPDATE record_fields SET is_searchable = 1 WHERE is_encrypted = 0 AND field_type = 'STRING'",
            ]
        },
        // Extra invitation links of shares: expiring, single-use, revocable.
        Migration(version: 12) { _ in
            [
                """
                CREATE TABLE share_links (
                    short_guid TEXT PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL,
                    zone_name TEXT NOT NULL, share_name TEXT NOT NULL, permission TEXT NOT NULL, expires_at BIGINT,
                    single_use BIGINT NOT NULL, created_by TEXT NOT NULL, created_at BIGINT NOT NULL, used_by TEXT,
                    revoked_at BIGINT)
                """,
                "CREATE INDEX share_links_by_share ON share_links (container, environment, owner, zone_name, share_name)",
            ]
        },
        // Requests to join shares that take them.
        Migration(version: 13) { _ in
            [
                """
                CREATE TABLE share_requests (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    share_name TEXT NOT NULL, user_record_name TEXT NOT NULL, status TEXT NOT NULL, requested_at BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, owner, zone_name, share_name, user_record_name))
                """
            ]
        },
        // Storage quotas: what each owner's live records take (fields and sealed fields), and an
        // optional per-user quota per container.
        Migration(version: 14) { dialect in
            [
                "ALTER TABLE container_settings ADD COLUMN user_quota_bytes BIGINT",
                """
                CREATE TABLE storage_usage (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, bytes BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, owner))
                """,
                """
                INSERT INTO storage_usage (container, environment, owner, bytes)
                SELECT container, environment, owner, SUM(\(dialect.recordSize)) FROM records WHERE is_deleted = 0
                GROUP BY container, environment, owner
                """,
            ]
        },
        // Token search: each record's search document (SearchTokens), indexed by FTS5 on SQLite
        // (kept in step by triggers, whichever statement writes the row) and by a GIN index of
        // its words as a tsvector on PostgreSQL. The document's words are final: both engines
        // take them as they are, split at the spaces only (FTS5's `ascii` tokenizer splits at
        // ASCII punctuation and spaces, of which a word has none; `array_to_tsvector` skips
        // PostgreSQL's parser, which would read a word such as `6e61...` as a number and more).
        // Records already stored get their documents here.
        Migration(version: 15, backfill: SearchDocumentBackfill.run) { dialect in
            switch dialect {
            case .sqlite:
                [
                    "ALTER TABLE records ADD COLUMN search_document TEXT",
                    """
                    CREATE VIRTUAL TABLE record_search USING fts5(
                        search_document, content = 'records', content_rowid = 'rowid', tokenize = 'ascii',
                        detail = 'none', columnsize = 0)
                    """,
                    """
                    CREATE TRIGGER records_search_insert AFTER INSERT ON records WHEN new.search_document IS NOT NULL BEGIN
                        INSERT INTO record_search (rowid, search_document) VALUES (new.rowid, new.search_document);
                    END
                    """,
                    """
                    CREATE TRIGGER records_search_delete AFTER DELETE ON records WHEN old.search_document IS NOT NULL BEGIN
                        INSERT INTO record_search (record_search, rowid, search_document) VALUES ('delete', old.rowid, old.search_document);
                    END
                    """,
                    """
                    CREATE TRIGGER records_search_update AFTER UPDATE OF search_document ON records BEGIN
                        INSERT INTO record_search (record_search, rowid, search_document)
                            SELECT 'delete', old.rowid, old.search_document WHERE old.search_document IS NOT NULL;
                        INSERT INTO record_search (rowid, search_document)
                            SELECT new.rowid, new.search_document WHERE new.search_document IS NOT NULL;
                    END
                    """,
                ]
            case .postgres:
                [
                    "ALTER TABLE records ADD COLUMN search_document TEXT",
                    """
                    CREATE INDEX records_search ON records USING GIN (array_to_tsvector(string_to_array(search_document, ' ')))
                        WHERE search_document IS NOT NULL
                    """,
                ]
            }
        },
        // SQLite: the search index's changes wait in a queue, replayed many at a time
        // (SearchIndexQueue). FTS5 writes its pending changes out as a new segment at every
        // savepoint, and every request in a group commit then ran in a savepoint of its own: writing
        // the index directly made a segment, and merge work, per single-record save.
        Migration(version: 16) { dialect in
            switch dialect {
            case .sqlite:
                [
                    """
                    CREATE TABLE search_index_queue (
                        position INTEGER PRIMARY KEY, record_rowid INTEGER NOT NULL, is_removal INTEGER NOT NULL,
                        search_document TEXT NOT NULL)
                    """,
                    "DROP TRIGGER records_search_insert",
                    "DROP TRIGGER records_search_delete",
                    "DROP TRIGGER records_search_update",
                    """
                    CREATE TRIGGER records_search_insert AFTER INSERT ON records WHEN new.search_document IS NOT NULL BEGIN
                        INSERT INTO search_index_queue (record_rowid, is_removal, search_document)
                            VALUES (new.rowid, 0, new.search_document);
                    END
                    """,
                    """
                    CREATE TRIGGER records_search_delete AFTER DELETE ON records WHEN old.search_document IS NOT NULL BEGIN
                        INSERT INTO search_index_queue (record_rowid, is_removal, search_document)
                            VALUES (old.rowid, 1, old.search_document);
                    END
                    """,
                    """
                    CREATE TRIGGER records_search_update AFTER UPDATE OF search_document ON records BEGIN
                        INSERT INTO search_index_queue (record_rowid, is_removal, search_document)
                            SELECT old.rowid, 1, old.search_document WHERE old.search_document IS NOT NULL;
                        INSERT INTO search_index_queue (record_rowid, is_removal, search_document)
                            SELECT new.rowid, 0, new.search_document WHERE new.search_document IS NOT NULL;
                    END
                    """,
                ]
            case .postgres:
                []
            }
        },
        // A replacement web auth token names the token it replaces: the old token keeps working
        // until the replacement is first used (clients that never read the rotation header).
        Migration(version: 17) { _ in
            ["ALTER TABLE web_auth_tokens ADD COLUMN replaces TEXT"]
        },
        // Accounts people make themselves: the ways each user signs in (identities), codes
        // mailed to an address, ID-token nonces already used, per-environment sign-in settings,
        // anonymous and disabled users, and sessions (a sign-in's tokens share the first one's
        // hash, so a device is listed and signed out as one).
        Migration(version: 18) { _ in
            [
                "ALTER TABLE users ADD COLUMN is_anonymous BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE users ADD COLUMN is_disabled BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE web_auth_tokens ADD COLUMN session_id TEXT",
                "ALTER TABLE web_auth_tokens ADD COLUMN device TEXT",
                "UPDATE web_auth_tokens SET session_id = token_hash",
                "CREATE INDEX web_auth_tokens_by_user ON web_auth_tokens (container, user_record_name)",
                """
                CREATE TABLE sign_in_settings (
                    container TEXT NOT NULL, environment TEXT NOT NULL, settings TEXT NOT NULL,
                    PRIMARY KEY (container, environment))
                """,
                """
                CREATE TABLE sign_in_identities (
                    container TEXT NOT NULL, provider TEXT NOT NULL, subject TEXT NOT NULL, user_record_name TEXT NOT NULL,
                    secret_hash TEXT, email TEXT, created_at BIGINT NOT NULL,
                    PRIMARY KEY (container, provider, subject))
                """,
                "CREATE INDEX sign_in_identities_by_user ON sign_in_identities (container, user_record_name)",
                """
                CREATE TABLE sign_in_codes (
                    container TEXT NOT NULL, email TEXT NOT NULL, purpose TEXT NOT NULL, code_hash TEXT NOT NULL,
                    expires_at BIGINT NOT NULL, failed_attempts BIGINT NOT NULL, name TEXT, password_hash TEXT,
                    user_record_name TEXT,
                    PRIMARY KEY (container, email))
                """,
                "CREATE TABLE used_nonces (nonce_hash TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
            ]
        },
        // Discoverability, as CloudKit's: people who sign up themselves are found by their address
        // only once they opt in. Users added before (by an operator, with an address given for
        // others to find them by) stay discoverable.
        Migration(version: 19) { _ in
            ["ALTER TABLE users ADD COLUMN is_discoverable BIGINT NOT NULL DEFAULT 1"]
        },
        // Assets: uploaded files (their encrypted bytes are in the blob store, named by
        // asset_id) and the records whose fields name them. An asset no record names is
        // collected after the retention period.
        Migration(version: 20) { dialect in
            [
                """
                CREATE TABLE assets (
                    asset_id TEXT PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL,
                    size BIGINT NOT NULL, checksum TEXT NOT NULL, wrapped_key \(dialect.blobType) NOT NULL,
                    content_type TEXT, file_name TEXT, created_at BIGINT NOT NULL)
                """,
                "CREATE INDEX assets_by_age ON assets (created_at)",
                """
                CREATE TABLE record_assets (
                    container TEXT NOT NULL, environment TEXT NOT NULL, owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    record_name TEXT NOT NULL, asset_id TEXT NOT NULL,
                    PRIMARY KEY (container, environment, owner, zone_name, record_name, asset_id))
                """,
                "CREATE INDEX record_assets_by_asset ON record_assets (asset_id)",
            ]
        },
        // A container's own limit on the size of an asset.
        Migration(version: 21) { _ in
            ["ALTER TABLE container_settings ADD COLUMN max_asset_bytes BIGINT"]
        },
        // The console's operators (apart from every container's users), their one-time set-up
        // links and sessions (both stored as hashes), and the audit log of what they changed.
        Migration(version: 22) { _ in
            [
                """
                CREATE TABLE operators (
                    operator_id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, role TEXT NOT NULL,
                    password_hash TEXT, is_disabled BIGINT NOT NULL DEFAULT 0, created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE operator_setup_links (
                    link_hash TEXT PRIMARY KEY, operator_id TEXT, expires_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE operator_sessions (
                    session_hash TEXT PRIMARY KEY, operator_id TEXT NOT NULL, expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX operator_sessions_by_operator ON operator_sessions (operator_id)",
                """
                CREATE TABLE console_audit (
                    at BIGINT NOT NULL, operator_email TEXT NOT NULL, action TEXT NOT NULL, container TEXT,
                    target TEXT NOT NULL, subject_user TEXT)
                """,
                "CREATE INDEX console_audit_by_time ON console_audit (at)",
            ]
        },
        // Users' grants of support access (time-boxed consent to read their data in the console)
        // and the reads made under them, which the user can list: numbered per grant, as
        // several reads may share a millisecond.
        Migration(version: 23) { _ in
            [
                """
                CREATE TABLE support_grants (
                    grant_id TEXT PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL, user_record_name TEXT NOT NULL,
                    zone_name TEXT, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, revoked_at BIGINT)
                """,
                "CREATE INDEX support_grants_by_user ON support_grants (container, environment, user_record_name, created_at)",
                """
                CREATE TABLE support_reads (
                    grant_id TEXT NOT NULL, position BIGINT NOT NULL, at BIGINT NOT NULL, operator_email TEXT NOT NULL,
                    what TEXT NOT NULL)
                """,
                "CREATE INDEX support_reads_by_grant ON support_reads (grant_id, position)",
            ]
        },
        // SQLite: FTS5 merges the search index's segments once four pile up at one level, not
        // sixteen. A token search reads every segment; replayed many changes at a time
        // (SearchIndexQueue), the index's incremental merging did little and the segments
        // climbed to sixteen before a merge, which made a search's MATCH up to four times the
        // cost of one over a merged index. Written in the index's own configuration table.
        Migration(version: 24) { dialect in
            switch dialect {
            case .sqlite: ["INSERT INTO record_search (record_search, rank) VALUES ('crisismerge', 4)"]
            case .postgres: []
            }
        },
        // Every zone write moves its zone's row to a new database counter, and the index over
        // that counter made each of these updates write a new entry into both of the zones'
        // indexes. On PostgreSQL it also ruled out heap-only updates (a new row version on the
        // same page, no index entries, the old one cleared when the page is next read): the
        // dead versions waited for a vacuum, so a busy tenant's zone rows spread over hundreds
        // of pages, which every read of them (a save reads its zone row) walked. The database
        // feed now reads a tenant's zones through the primary key and sorts them, a scan of
        // one tenant's zones.
        Migration(version: 25) { _ in
            ["DROP INDEX IF EXISTS zones_by_database_change"]
        },
        // Deleting an account deletes the requests to join shares its user made and the codes
        // sent for them; keyed by share and by address, both were found by a scan of the
        // container's rows, in a write that on SQLite holds the deployment's only writer.
        Migration(version: 26) { _ in
            [
                "CREATE INDEX share_requests_by_user ON share_requests (container, environment, user_record_name)",
                // Only a code that links an address to an account names a user.
                "CREATE INDEX sign_in_codes_by_user ON sign_in_codes (container, user_record_name) WHERE user_record_name IS NOT NULL",
            ]
        },
        // Expired credentials are pruned by the hour (`SQLStore.pruneExpiredCredentials`), found
        // by when they expire.
        Migration(version: 27) { _ in
            [
                "CREATE INDEX web_auth_tokens_by_expiry ON web_auth_tokens (expires_at)",
                "CREATE INDEX sign_in_codes_by_expiry ON sign_in_codes (expires_at)",
                "CREATE INDEX contact_verifications_by_expiry ON contact_verifications (expires_at)",
            ]
        },
    ]

    /// Brings the schema up to the latest version (or to `through`, for tests of an upgrade).
    /// Safe to run from several processes at once: each version is applied in the caller's
    /// write transaction after re-reading the version.
    static func migrate(_ connection: any SQLConnection, dialect: SQLDialect, through: Int64 = .max) async throws {
        try await connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)"
        )
        let applied = Set(
            try await connection.query("SELECT version FROM schema_migrations", []).map { $0.int(0) }
        )
        for migration in all where !applied.contains(migration.version) && migration.version <= through {
            for statement in migration.statements(dialect) {
                try await connection.execute(statement)
            }
            try await migration.backfill?(connection)
            try await connection.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                [.integer(migration.version), .integer(0)]
            )
        }
    }
}
