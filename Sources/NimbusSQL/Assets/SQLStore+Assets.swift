//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SQLStore: AssetStore {
    private static let assetColumns = "asset_id, container, environment, owner, size, checksum, wrapped_key, content_type, file_name, created_at"

    public func saveAsset(_ asset: StoredAsset) async throws {
        try await database.write { connection in
            try await connection.execute(
                "INSERT INTO assets (\(Self.assetColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(asset.id), .text(asset.tenant.container), .text(asset.tenant.environment.rawValue), .text(asset.tenant.owner),
                    .integer(asset.size), .text(asset.checksum), .blob(asset.wrappedKey),
                    asset.contentType.map { .text($0) } ?? .null, asset.fileName.map { .text($0) } ?? .null, .integer(asset.createdAt),
                ]
            )
        }
    }

    public func asset(id: String) async throws -> StoredAsset? {
        let rows = try await database.read { connection in
            try await connection.query("SELECT \(Self.assetColumns) FROM assets WHERE asset_id = ?", [.text(id)])
        }
        return rows.first.flatMap(Self.storedAsset)
    }

    public func collectUnreferencedAssets(uploadedBefore cutoff: Int64, limit: Int) async throws -> [StoredAsset] {
        // One statement: a reference written after it started keeps its asset (a record save
        // refers to an asset only through a receipt, which expires long before the cutoff).
        let rows = try await database.write { connection in
            try await connection.query(
                """
                DELETE FROM assets WHERE asset_id IN (
                    SELECT asset_id FROM assets a WHERE a.created_at < ?
                      AND NOT EXISTS (SELECT 1 FROM record_assets r WHERE r.asset_id = a.asset_id)
                    ORDER BY a.created_at LIMIT ?)
                RETURNING \(Self.assetColumns)
                """,
                [.integer(cutoff), .integer(Int64(limit))]
            )
        }
        return rows.compactMap(Self.storedAsset)
    }

    private static func storedAsset(_ row: SQLRow) -> StoredAsset? {
        guard let environment = Environment(rawValue: row.string(2)) else { return nil }
        return StoredAsset(
            id: row.string(0),
            tenant: Tenant(container: row.string(1), environment: environment, owner: row.string(3)),
            size: row.int(4),
            checksum: row.string(5),
            wrappedKey: row[6].blob ?? [],
            contentType: row[7].text,
            fileName: row[8].text,
            createdAt: row.int(9)
        )
    }
}
