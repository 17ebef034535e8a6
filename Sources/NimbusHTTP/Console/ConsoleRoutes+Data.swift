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
    /// Records a page of the data browser shows.
    static let dataPageSize = 50

    /// `GET .../data?type=T&filter=...&sort=F&descending=1&continuation=M`: the public
    /// database's records of a type, filtered and sorted as the filter language allows, a page
    /// at a time. It reads as an app's anonymous caller does: what anyone with the API token
    /// may read, nothing more (private and shared data are not browsed here).
    func dataPage(_ session: ConsoleSession, _ environment: ContainerEnvironment, query parameters: FormBody)
        async throws(NimbusError) -> Response
    {
        let types: [String]
        do {
            types = try await services.schema.schema(of: environment).keys.sorted()
        } catch let error as NimbusError {
            throw error
        } catch {
            throw NimbusError(.internalError, "the schema could not be read")
        }
        let recordType = parameters["type"] ?? types.first
        let filterText = parameters["filter"] ?? ""
        let sortField = (parameters["sort"] ?? "").trimmingCharacters(in: .whitespaces)
        let descending = parameters["descending"] == "1"
        var values = frame(
            "Data · \(environment.container)",
            session: session,
            nav: "Overview",
            notice: parameters["notice"] == "record-deleted" ? "The record is deleted." : nil
        )
        values.merge(Self.values(of: environment)) { _, new in new }
        values["types"] = types.map { ["name": $0, "selected": $0 == recordType] }
        values["hasTypes"] = !types.isEmpty
        values["filter"] = filterText
        values["sort"] = sortField
        values["descending"] = descending
        guard let recordType else {
            values["empty"] = "No record types yet: the public database has no records."
            return templates.page("data", values)
        }
        values["recordType"] = recordType
        do {
            var filters: [Filter] = []
            for line in filterText.split(whereSeparator: \.isNewline) where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                do {
                    filters.append(try Filter(parsing: line.trimmingCharacters(in: .whitespaces)))
                } catch {
                    throw NimbusError.badRequest(error.description)
                }
            }
            let query = Query(
                recordType: recordType,
                filters: filters,
                sortDescriptors: sortField.isEmpty ? [] : [SortDescriptor(sortField, ascending: !descending)]
            )
            let result = try await services.database.queryRecords(
                query,
                inZone: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: ""),
                resultsLimit: Self.dataPageSize,
                continuationMarker: parameters["continuation"],
                access: publicReader(environment)
            )
            values["records"] = result.records.map { record in recordRow(record, environment) }
            values["count"] = result.records.count
            if let marker = result.continuationMarker {
                var next = URLComponents()
                next.queryItems = [
                    URLQueryItem(name: "type", value: recordType), URLQueryItem(name: "filter", value: filterText),
                    URLQueryItem(name: "sort", value: sortField), URLQueryItem(name: "descending", value: descending ? "1" : "0"),
                    URLQueryItem(name: "continuation", value: marker),
                ]
                values["next"] = dataPath(environment) + "?" + (next.percentEncodedQuery ?? "")
            }
            return templates.page("data", values)
        } catch let error as NimbusError where error.code == .badRequest {
            // A query the language or the schema refuses is shown above the form, to fix.
            values["problem"] = error.reason
            return templates.page("data", status: .badRequest, values)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw NimbusError(.internalError, "the query could not run")
        }
    }

    /// `GET .../data/records/{name}`: one public record, every field typed and readable.
    func recordPage(_ session: ConsoleSession, _ environment: ContainerEnvironment, name: String, notice: String? = nil)
        async throws(NimbusError) -> Response
    {
        let found = try await services.database.lookupRecords(
            named: [name],
            inZone: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: ""),
            access: publicReader(environment)
        )
        guard case .success(let record)? = found.first else {
            throw NimbusError(.unknownItem, "no record \(name.prefix(255)) in the public database")
        }
        var values = frame(name, session: session, nav: "Overview", notice: notice == "record-saved" ? "The record is saved." : nil)
        values.merge(Self.values(of: environment)) { _, new in new }
        values["recordName"] = record.recordID.recordName
        values["recordType"] = record.recordType
        values["changeTag"] = record.recordChangeTag
        values["created"] = ConsoleFormat.time(record.created.timestamp)
        values["createdBy"] = record.created.userRecordName
        values["modified"] = ConsoleFormat.time(record.modified.timestamp)
        values["modifiedBy"] = record.modified.userRecordName
        let fields =
            record.fields.map { ($0.key.description, $0.value, false) } + record.encryptedFields.map { ($0.key.description, $0.value, true) }
        values["recordPath"] = recordPath(environment, record.recordID.recordName)
        values["editable"] = record.fields.sorted { $0.key.description < $1.key.description }.filter { Self.isEditable($0.value) }.map {
            ["name": $0.key.description, "text": Self.formText($0.value), "type": $0.value.type.rawValue]
        }
        values["hasEditable"] = record.fields.values.contains(where: Self.isEditable)
        var rows: [[String: Any]] = []
        for (name, value, encrypted) in fields.sorted(by: { $0.0 < $1.0 }) {
            var field: [String: Any] = ["name": name, "type": value.type.rawValue, "encrypted": encrypted, "value": value.readableText]
            if case .reference(let reference) = value, reference.zoneID == nil {
                field["link"] = dataPath(environment) + "/records/" + ConsoleFormat.segment(reference.recordName)
            }
            if case .asset(let asset) = value, let assetID = asset.assetID {
                field["asset"] = try await assetLinks(assetID)
            }
            rows.append(field)
        }
        values["fields"] = rows
        return templates.page("record", values)
    }

    // MARK: - Helpers

    /// An asset's download link (signed and short-lived, as a client's) and, for a picture,
    /// the same link as a preview.
    private func assetLinks(_ assetID: String) async throws(NimbusError) -> [String: Any] {
        let href = services.assets.downloadPath(assetID: assetID).replacingOccurrences(of: "${f}", with: "file")
        let type = try await services.assets.contentType(ofAsset: assetID) ?? ""
        return ["href": href, "isImage": type.lowercased().hasPrefix("image/")]
    }

    /// An app's anonymous caller: the public database as anyone with the API token reads it.
    func publicReader(_ environment: ContainerEnvironment) -> DatabaseAccess {
        DatabaseAccess(
            caller: Caller(container: environment.container, environment: environment.environment, kind: .anonymous, userRecordName: nil),
            scope: .public
        )
    }

    func dataPath(_ environment: ContainerEnvironment) -> String {
        "/console/containers/\(ConsoleFormat.segment(environment.container))/\(environment.environment.rawValue)/data"
    }

    /// A result row: the record's name, when and by whom, and its first fields, shortened.
    private func recordRow(_ record: Record, _ environment: ContainerEnvironment) -> [String: Any] {
        [
            "recordName": record.recordID.recordName,
            "link": dataPath(environment) + "/records/" + ConsoleFormat.segment(record.recordID.recordName),
            "modified": ConsoleFormat.time(record.modified.timestamp),
            "summary": Self.summary(of: record, fields: 4, length: 60),
        ]
    }

    /// A record's first fields, by name, each shortened to `length` characters; encrypted
    /// fields are only mentioned.
    static func summary(of record: Record, fields: Int, length: Int) -> String {
        let summary = record.fields.sorted { $0.key.description < $1.key.description }.prefix(fields).map { name, value in
            let text = value.readableText
            return "\(name) \(text.count > length ? text.prefix(length - 1) + "…" : text)"
        }
        return summary.joined(separator: " · ") + (record.encryptedFields.isEmpty ? "" : " · (encrypted fields)")
    }
}
