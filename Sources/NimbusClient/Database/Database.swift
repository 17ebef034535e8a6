//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

/// One of a container's databases: public, private (the signed-in user's) or shared.
///
/// CloudKit's `CKDatabase`. Every method is one or more CloudKit Web Services requests; results
/// are values (``NimbusModel/Record`` is `Sendable`), safe to keep and to pass between tasks.
public struct Database: Sendable {
    /// The container the database belongs to.
    public let container: Container
    /// Which of the container's databases this is.
    public let scope: DatabaseScope

    init(container: Container, scope: DatabaseScope) {
        self.container = container
        self.scope = scope
    }

    /// Sends an operation with a JSON body written by `body`. `idempotent` says whether it may be
    /// sent again when no response arrived: reads may, writes may not.
    func post(_ operation: String, idempotent: Bool, _ body: (inout JSONWriter) -> Void) async throws -> JSONObject {
        var writer = JSONWriter()
        body(&writer)
        return try Self.object(try await container.perform(operation, in: scope, body: writer.bytes, idempotent: idempotent))
    }

    /// Sends an operation whose response has a `records` array, and reads the records straight
    /// from the bytes.
    /// - Parameter zoneID: the zone of a record whose dictionary names none.
    /// - Parameter expectedBodySize: room to reserve for the body, so a large one is not
    ///   copied as it grows.
    /// - Parameter answered: called once a successful answer arrived, before it is read.
    func postForRecords(
        _ operation: String,
        idempotent: Bool,
        in zoneID: ZoneID,
        expectedBodySize: Int = 512,
        expectedCount: Int = 0,
        answered: () -> Void = {},
        _ body: (inout JSONWriter) -> Void
    ) async throws -> RecordsResponseReader {
        var writer = JSONWriter(capacity: expectedBodySize)
        body(&writer)
        let bytes = try await container.send(operation, in: scope, body: writer.bytes, idempotent: idempotent)
        // The server did the work, whether or not its answer can be read.
        answered()
        return try RecordsResponseReader(bytes, in: zoneID, expectedCount: expectedCount)
    }

    /// Sends an operation that takes no body (`GET`): a read.
    func get(_ operation: String) async throws -> JSONObject {
        try Self.object(try await container.perform(operation, in: scope, body: nil, idempotent: true))
    }

    private static func object(_ json: JSONValue) throws -> JSONObject {
        guard case .object(let members) = json else {
            throw NimbusError(.internalError, "the server's response is not a JSON object")
        }
        return members
    }
}
