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
    /// `GET .../schema`: the environment's record types and fields with their markings, and
    /// what deploying development to production would add (as `nimbus schema deploy --dry-run`).
    func schemaPage(_ session: ConsoleSession, _ environment: ContainerEnvironment, notice: String?) async throws(NimbusError)
        -> Response
    {
        let schema: RecordSchema
        let pending: [SchemaChange]
        do {
            schema = try await services.schema.schema(of: environment)
            pending = try await services.schema.deploy(container: environment.container, dryRun: true)
        } catch let error as NimbusError {
            throw error
        } catch let conflict as SchemaConflict {
            throw NimbusError.badRequest("development and production disagree: \(conflict)")
        } catch {
            throw NimbusError(.internalError, "the schema could not be read")
        }
        var values = frame("Schema · \(environment.container)", session: session, nav: "Overview", notice: notice.flatMap { Self.schemaNotices[$0] })
        values.merge(Self.values(of: environment)) { _, new in new }
        values["types"] = schema.sorted { $0.key < $1.key }.map { name, fields -> [String: Any] in
            [
                "name": name,
                "fields": fields.sorted { $0.key < $1.key }.map { field, schema -> [String: Any] in
                    [
                        "name": field.description, "type": schema.typeDescription,
                        "markings": [(schema.isQueryable, "queryable"), (schema.isSortable, "sortable"), (schema.isSearchable, "searchable")]
                            .filter(\.0).map(\.1).joined(separator: ", "),
                    ]
                },
            ]
        }
        values["pending"] = pending.map(\.description)
        values["hasPending"] = !pending.isEmpty
        return templates.page("schema", values)
    }

    /// `POST .../schema/deploy`: adds the development schema to production.
    func deploySchema(_ session: ConsoleSession, _ environment: ContainerEnvironment) async throws(NimbusError) -> Response {
        let changes: [SchemaChange]
        do {
            changes = try await services.schema.deploy(container: environment.container)
        } catch let error as NimbusError {
            throw error
        } catch let conflict as SchemaConflict {
            throw NimbusError.badRequest("nothing was deployed: \(conflict)")
        } catch {
            throw NimbusError(.internalError, "the schema could not be deployed")
        }
        try await services.operators.audit(
            session.account,
            "schema.deploy",
            container: environment.container,
            target: "\(changes.count) change\(changes.count == 1 ? "" : "s")"
        )
        let path = "/console/containers/\(ConsoleFormat.segment(environment.container))/\(environment.environment.rawValue)/schema"
        return redirect(path + "?notice=deployed")
    }

    private static let schemaNotices = ["deployed": "The development schema is deployed to production."]
}
