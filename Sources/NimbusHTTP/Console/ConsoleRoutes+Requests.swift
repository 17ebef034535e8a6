//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Hummingbird
import Logging

extension ConsoleRoutes {
    /// `GET /console/requests?id=UUID`: a request's log lines, found by the UUID a client got.
    func requestPage(_ session: ConsoleSession, id: String?) -> Response {
        var values = frame("Requests", session: session, nav: "Requests")
        let id = (id ?? "").trimmingCharacters(in: .whitespaces)
        values["id"] = id
        values["capacity"] = recentRequests?.capacity ?? 0
        guard !id.isEmpty else { return templates.page("requests", values) }
        let lines = recentRequests?.lines(ofRequest: id) ?? []
        values["searched"] = true
        values["hasLines"] = !lines.isEmpty
        values["lines"] = lines.map { line -> [String: Any] in
            ["at": ConsoleFormat.time(line.at, seconds: true), "level": line.level.rawValue, "message": line.message, "metadata": line.metadata]
        }
        return templates.page("requests", status: lines.isEmpty ? .notFound : .ok, values)
    }
}
