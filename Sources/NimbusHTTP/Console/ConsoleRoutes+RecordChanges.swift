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
    /// `GET .../data/records/{name}/delete`: what deleting the record would do, and the button.
    func deleteRecordPage(_ session: ConsoleSession, _ environment: ContainerEnvironment, name: String) async throws(NimbusError) -> Response {
        let record = try await publicRecord(name, environment)
        var values = frame("Delete \(name)", session: session, nav: "Overview")
        values.merge(Self.values(of: environment)) { _, new in new }
        values["recordName"] = record.recordID.recordName
        values["recordType"] = record.recordType
        values["recordPath"] = recordPath(environment, name)
        return templates.page("record-delete", values)
    }

    /// `POST .../data/records/{name}/delete`: deletes a public record as the container's
    /// developer (the creator-only rule does not bind operators), audited.
    func deleteRecord(_ session: ConsoleSession, _ environment: ContainerEnvironment, name: String) async throws(NimbusError) -> Response {
        let result = try await services.database.modifyRecords(
            [RecordOperation(kind: .forceDelete, recordName: name)],
            inZone: Self.publicZone,
            atomic: true,
            access: try await moderator(environment)
        )
        if case .failed(_, let error)? = result.first { throw error }
        try await services.operators.audit(session.account, "record.delete", container: environment.container, target: name)
        return redirect(dataPath(environment) + "?notice=record-deleted")
    }

    /// `POST .../data/records/{name}/edit`: saves the text, integer and decimal fields the
    /// record page's form sends, against the change tag the page showed (a record changed since
    /// is a conflict, and nothing is saved).
    func editRecord(_ session: ConsoleSession, _ environment: ContainerEnvironment, name: String, _ form: FormBody) async throws(NimbusError)
        -> Response
    {
        let record = try await publicRecord(name, environment)
        var fields: [NameKey: FieldInput] = [:]
        for (key, value) in record.fields {
            guard let text = form["field." + key.description] else { continue }
            switch value {
            case .string: fields[key] = FieldInput(.string(text))
            case .int64:
                guard let number = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                    throw .badRequest("\(key.description) is a whole number; nothing was saved")
                }
                fields[key] = FieldInput(.int64(number))
            case .double:
                guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite else {
                    throw .badRequest("\(key.description) is a number; nothing was saved")
                }
                fields[key] = FieldInput(.double(number))
            default:
                throw .badRequest("\(key.description) cannot be edited here (only text and numbers); nothing was saved")
            }
        }
        let result = try await services.database.modifyRecords(
            [RecordOperation(kind: .update, recordName: name, recordType: record.recordType, recordChangeTag: form["changeTag"], fields: fields)],
            inZone: Self.publicZone,
            atomic: true,
            access: try await moderator(environment)
        )
        if case .failed(_, let error)? = result.first {
            if error.code == .serverRecordChanged {
                throw NimbusError(.serverRecordChanged, "the record changed since the page was opened; open it again and redo the edit")
            }
            throw error
        }
        try await services.operators.audit(session.account, "record.edit", container: environment.container, target: name)
        return redirect(recordPath(environment, name) + "?notice=record-saved")
    }

    /// Whether a field's value can be edited in the console's form.
    static func isEditable(_ value: FieldValue) -> Bool {
        switch value {
        case .string, .int64, .double: true
        default: false
        }
    }

    /// The text a field's value has in the edit form.
    static func formText(_ value: FieldValue) -> String {
        switch value {
        case .string(let text): text
        case .int64(let number): String(number)
        case .double(let number): String(number)
        default: ""
        }
    }

    static let publicZone = ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")

    private func publicRecord(_ name: String, _ environment: ContainerEnvironment) async throws(NimbusError) -> Record {
        let found = try await services.database.lookupRecords(named: [name], inZone: Self.publicZone, access: publicReader(environment))
        guard case .success(let record)? = found.first else {
            throw NimbusError(.unknownItem, "no record \(name.prefix(255)) in the public database")
        }
        return record
    }

    /// The console's writer: the container's developer, with the creator-only rule lifted.
    private func moderator(_ environment: ContainerEnvironment) async throws(NimbusError) -> DatabaseAccess {
        let developer = try await services.accounts.developer(ofContainer: environment.container)
        return DatabaseAccess(
            caller: Caller(container: environment.container, environment: environment.environment, kind: .user, userRecordName: developer),
            scope: .public,
            isModeration: true
        )
    }

    func recordPath(_ environment: ContainerEnvironment, _ name: String) -> String {
        dataPath(environment) + "/records/" + ConsoleFormat.segment(name)
    }
}
