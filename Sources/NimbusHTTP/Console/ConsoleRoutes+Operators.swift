//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore

extension ConsoleRoutes {
    /// `GET /console/operators`.
    func operatorsPage(_ session: ConsoleSession, newLink: String?, newEmail: String?) async throws(NimbusError) -> Response {
        let operators = try await services.operators.operators()
        var values = frame("Operators", session: session, nav: "Operators")
        values["operators"] = operators.map { account -> [String: Any] in
            [
                "email": account.email,
                "role": account.role.rawValue,
                "state": account.isDisabled ? "disabled" : account.passwordHash == nil ? "set-up link not used yet" : "active",
                "created": ConsoleFormat.time(account.createdAt),
            ]
        }
        if let newLink { values["newLink"] = newLink }
        if let newEmail { values["newEmail"] = newEmail }
        return templates.page("operators", values)
    }

    /// `POST /console/operators`: adds an operator and shows their set-up link once.
    func addOperator(_ session: ConsoleSession, _ form: FormBody) async throws(NimbusError) -> Response {
        guard let role = OperatorRole(rawValue: form["role"] ?? "") else { throw .badRequest("the role is admin or read-only") }
        let (account, secret) = try await services.operators.add(email: form["email"] ?? "", role: role)
        try await services.operators.audit(session.account, "operator.add", container: nil, target: "\(account.email) (\(role.rawValue))")
        return try await operatorsPage(session, newLink: "\(publicAddress.value)/console/setup/\(secret)", newEmail: account.email)
    }

    /// `GET /console/audit`: the newest changes first.
    func auditPage(_ session: ConsoleSession) async throws(NimbusError) -> Response {
        let entries = try await services.operators.auditLog(limit: 500)
        var values = frame("Audit log", session: session, nav: "Audit")
        values["entries"] = entries.map { entry -> [String: Any] in
            [
                "at": ConsoleFormat.time(entry.at),
                "operatorEmail": entry.operatorEmail,
                "action": entry.action,
                "container": entry.container ?? "",
                "target": entry.target,
            ]
        }
        return templates.page("audit", values)
    }
}
