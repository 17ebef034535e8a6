//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusStore

extension SQLStore {
    public func containerSettings(_ container: String) async throws -> ContainerSettings {
        let rows = try await database.readStatement(
            "SELECT app_url_scheme, fallback_url, user_quota_bytes, max_asset_bytes FROM container_settings WHERE container = ?",
            [.text(container)]
        )
        guard let row = rows.first else { return ContainerSettings(container: container) }
        return ContainerSettings(
            container: container,
            appURLScheme: row[0].text,
            fallbackURL: row[1].text,
            userQuotaBytes: row[2].integer,
            maximumAssetBytes: row[3].integer
        )
    }

    public func saveContainerSettings(_ settings: ContainerSettings) async throws {
        let dialect = database.dialect
        try await database.write { connection in
            try await connection.execute(
                """
                INSERT INTO container_settings (container, app_url_scheme, fallback_url, user_quota_bytes, max_asset_bytes)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (container) DO UPDATE SET
                    app_url_scheme = excluded.app_url_scheme, fallback_url = excluded.fallback_url,
                    user_quota_bytes = excluded.user_quota_bytes, max_asset_bytes = excluded.max_asset_bytes
                """,
                [
                    .text(settings.container), settings.appURLScheme.map(SQLValue.text) ?? .null,
                    settings.fallbackURL.map(SQLValue.text) ?? .null, settings.userQuotaBytes.map(SQLValue.integer) ?? .null,
                    settings.maximumAssetBytes.map(SQLValue.integer) ?? .null,
                ]
            )
            // Storage is counted only under a quota: setting one counts what is stored now.
            if settings.userQuotaBytes != nil { try await Self.recountStorage(of: settings.container, on: connection, dialect: dialect) }
        }
        quotas.remember(settings.userQuotaBytes, of: settings.container)
    }
}
