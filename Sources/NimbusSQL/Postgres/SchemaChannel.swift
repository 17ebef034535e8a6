//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A `NOTIFY` channel of one store: the channel's name with the store's schema appended
/// (`nimbus_inbox.public`), cut to the 63 bytes PostgreSQL keeps of a name.
///
/// Channels belong to the database, not to a schema: two stores in two schemas of one database
/// (two deployments, or a test suite's tests) would otherwise hear each other's notifications,
/// and wake for work that is not theirs. Both ends compute the name in SQL from
/// `current_schema()`, the schema the store's tables are in, so they agree whatever the
/// connection's search path.
enum SchemaChannel {
    /// The channel's name for the connection's schema, with the base name bound to `?`.
    static let nameSQL = "left(? || '.' || current_schema(), 63)"
}
