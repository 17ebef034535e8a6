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
        values.merge(Self.values(of: environment)) { _, new in new }
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
            let read = try await services.support.overview(of: user, in: environment, reader: session.account)
            grant = read.grant
            if let account = read.account {
                values["account"] = try await accountValues(account, session, environment, user: user, query: query, userPath: userPath)
            }
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
                    "owner": zone.scope == .shared ? zone.zoneID.ownerRecordName : "the user",
                    "link": userPath + "/data?" + (link.percentEncodedQuery ?? ""),
                ]
            }
        }
        values["grant"] = Self.grantText(grant)
        return templates.page("support", values)
    }

    /// The account part of the support page: shares, subscriptions with the rules' dry run,
    /// and the latest notifications.
    private func accountValues(
        _ view: SupportAccountView,
        _ session: ConsoleSession,
        _ environment: ContainerEnvironment,
        user: String,
        query: FormBody,
        userPath: String
    ) async throws(NimbusError) -> [String: Any] {
        var values: [String: Any] = ["action": userPath + "/data"]
        values["shares"] = view.shares.map { located -> [String: Any] in
            [
                "zone": located.zoneName,
                "owner": located.tenant.owner == user ? "the user" : located.tenant.owner,
                "root": located.share.rootRecordName ?? "the whole zone",
                "public": located.share.publicPermission.rawValue,
                "participants": located.share.participants.map { participant in
                    let who = participant.name ?? participant.lookupInfo.map { "\($0)" } ?? participant.userRecordName ?? participant.participantID
                    return "\(who) (\(participant.role.rawValue), \(participant.permission.rawValue), \(participant.acceptance.rawValue))"
                }
                .joined(separator: "; "),
                "link": located.link == nil ? "no" : "yes",
            ]
        }
        values["subscriptions"] = view.subscriptions.map { scope, subscription -> [String: Any] in
            let watches: String
            switch subscription.kind {
            case .query(let query, let zoneID, let firesOn, _):
                let on = firesOn.sorted().map(\.rawValue).joined(separator: ", ")
                watches = "\(query.recordType) records in \(zoneID?.zoneName ?? "every zone") on \(on)"
            case .zone(let zoneID): watches = "zone \(zoneID.zoneName)"
            case .database: watches = "the whole database"
            }
            return [
                "database": scope.rawValue,
                "id": subscription.subscriptionID,
                "value": scope.rawValue + "|" + subscription.subscriptionID,
                "watches": watches,
                "rules": subscription.rules.isEmpty ? "none" : subscription.rules.map(\.name).joined(separator: ", "),
                "selected": query["subscription"] == scope.rawValue + "|" + subscription.subscriptionID,
            ]
        }
        values["devices"] = view.devices.map { device -> [String: Any] in
            [
                "kind": device.kind == .apns ? "APNs (\(device.apnsEnvironment))" : device.kind == .webhook ? "webhook" : "web courier",
                "device": device.deviceID ?? "",
                "delivered": "\(device.deliveredThrough) of \(view.lastSequence)",
                "failures": device.failures,
                "lastUsed": ConsoleFormat.time(device.lastUsedAt),
            ]
        }
        values["hasDevices"] = !view.devices.isEmpty
        values["accessRequests"] = view.accessRequests.map { request -> [String: Any] in
            [
                "share": request.shareName, "requester": request.userRecordName, "status": request.status.rawValue,
                "at": ConsoleFormat.time(request.requestedAt),
            ]
        }
        values["hasAccessRequests"] = !view.accessRequests.isEmpty
        values["hasSubscriptions"] = !view.subscriptions.isEmpty
        values["hasShares"] = !view.shares.isEmpty
        values["hasNotifications"] = !view.notifications.isEmpty
        values["notifications"] = view.notifications.map { entry -> [String: Any] in
            let payload = String(decoding: entry.payload, as: UTF8.self)
            return [
                "sequence": entry.sequence,
                "at": ConsoleFormat.time(entry.createdAt, seconds: true),
                "payload": payload.count > 200 ? payload.prefix(199) + "…" : payload,
            ]
        }
        values["record"] = query["record"] ?? ""
        values["explainZone"] = query["explainZone"] ?? ""
        if let chosen = query["subscription"], let bar = chosen.firstIndex(of: "|"), let recordName = query["record"], !recordName.isEmpty {
            guard let scope = DatabaseScope(parsing: chosen[..<bar]) else { throw .badRequest("no such database") }
            // A zone of the shared database is named with its owner: `Zone:_owner`.
            let zoneText = (query["explainZone"] ?? "").trimmingCharacters(in: .whitespaces)
            let zoneParts = zoneText.split(separator: ":", maxSplits: 1).map(String.init)
            do {
                let explanation = try await services.support.explain(
                    of: user,
                    in: environment,
                    scope: scope,
                    subscriptionID: String(chosen[chosen.index(after: bar)...]),
                    recordName: recordName,
                    zoneID: zoneParts.first.map { ZoneID(zoneName: $0, ownerRecordName: zoneParts.count > 1 ? zoneParts[1] : user) },
                    reader: session.account
                )
                values["explanation"] = [
                    "summary": explanation.fires
                        ? "A change to \(recordName) would notify them: \(explanation.decision.rawValue)"
                            + (explanation.rule.map { ", by the rule \($0)" } ?? "") + "."
                        : "A change to \(recordName) would not notify them through this subscription.",
                    "steps": explanation.steps,
                ]
            } catch  where error.code == .unknownItem || error.code == .zoneNotFound || error.code == .badRequest {
                values["explainProblem"] = error.reason
            }
        }
        return values
    }

    /// A grant in words: what it covers and until when.
    static func grantText(_ grant: SupportGrant) -> [String: Any] {
        [
            "scope": grant.zoneName.map { "the zone \($0) of their private database" } ?? "all their data",
            "expires": ConsoleFormat.time(grant.expiresAt),
        ]
    }
}
