//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore

extension ConsoleRoutes {
    /// `GET .../users/{user}/data`: the zones a user's live support grant lets operators read;
    /// `?database=private|shared&zone=Z&owner=O&continuation=T`: a page of one zone's records.
    /// Without a grant, a `403` page that says so (the console shows that user's counts only).
    /// Every page is a read the user sees (`users/support/list`) and the audit log records.
    func supportDataPage(_ session: ConsoleSession, _ environment: ContainerEnvironment, user: String, query: FormBody)
        async throws(NimbusError) -> Response
    {
        var values = frame("Data under a support grant", session: session, nav: "Overview")
        values["container"] = environment.container
        values["containerPath"] = ConsoleFormat.segment(environment.container)
        values["environment"] = environment.environment.rawValue
        values["userRecordName"] = user
        let userPath =
            "/console/containers/\(ConsoleFormat.segment(environment.container))/\(environment.environment.rawValue)/users/"
            + ConsoleFormat.segment(user)
        values["userPath"] = userPath
        let grant: SupportGrant
        if let zoneName = query["zone"], !zoneName.isEmpty {
            guard let scope = DatabaseScope(parsing: query["database"] ?? "private"), scope != .public else {
                throw .badRequest("the database is private or shared")
            }
            let owner = scope == .shared ? (query["owner"] ?? "") : user
            let zone = SupportedZone(scope: scope, zoneID: ZoneID(zoneName: zoneName, ownerRecordName: owner))
            let read = try await services.support.records(
                of: user,
                in: environment,
                zone: zone,
                continuation: query["continuation"].flatMap { $0.isEmpty ? nil : $0 },
                reader: session.account
            )
            grant = read.grant
            values["zone"] = ["title": zone.description, "zonesLink": userPath + "/data"]
            values["records"] = read.page.changes.compactMap { change -> [String: Any]? in
                guard case .saved(let record) = change else { return nil }
                return [
                    "recordName": record.recordID.recordName,
                    "recordType": record.recordType,
                    "modified": ConsoleFormat.time(record.modified.timestamp),
                    "summary": Self.summary(of: record, fields: 8, length: 120),
                ]
            }
            if read.page.moreComing {
                var next = URLComponents()
                next.queryItems = [
                    URLQueryItem(name: "database", value: scope.rawValue), URLQueryItem(name: "zone", value: zoneName),
                    URLQueryItem(name: "owner", value: owner), URLQueryItem(name: "continuation", value: read.page.syncToken),
                ]
                values["next"] = userPath + "/data?" + (next.percentEncodedQuery ?? "")
            }
        } else {
            let read = try await services.support.zones(of: user, in: environment, reader: session.account)
            grant = read.grant
            values["hasZones"] = !read.zones.isEmpty
            values["noZones"] = read.zones.isEmpty
            values["zones"] = read.zones.map { zone -> [String: Any] in
                var link = URLComponents()
                link.queryItems = [
                    URLQueryItem(name: "database", value: zone.scope.rawValue), URLQueryItem(name: "zone", value: zone.zoneID.zoneName),
                    URLQueryItem(name: "owner", value: zone.zoneID.ownerRecordName),
                ]
                return [
                    "database": zone.scope.rawValue,
                    "zoneName": zone.zoneID.zoneName,
                    "owner": zone.scope == .shared ? zone.zoneID.ownerRecordName : "",
                    "link": userPath + "/data?" + (link.percentEncodedQuery ?? ""),
                ]
            }
        }
        values["grant"] = Self.grantText(grant)
        return templates.page("support", values)
    }

    /// A grant in words: what it covers and until when.
    static func grantText(_ grant: SupportGrant) -> [String: Any] {
        [
            "scope": grant.zoneName.map { "the zone \($0) of their private database" } ?? "all their data",
            "expires": ConsoleFormat.time(grant.expiresAt),
        ]
    }
}
