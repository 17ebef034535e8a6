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
    /// `GET /console/telemetry?span=hour|day`: the requests of the span, and storage by container.
    func telemetryPage(_ session: ConsoleSession, span: String?) async throws(NimbusError) -> Response {
        var values = frame("Telemetry", session: session, nav: "Telemetry")
        values.merge(TelemetryView.page(telemetry, day: span == "day")) { _, new in new }
        let (storage, countedAt) = try await services.operators.storageByContainer()
        values["storageCountedAt"] = ConsoleFormat.time(countedAt)
        values["hasStorage"] = !storage.isEmpty
        values["storage"] = storage.map { figure -> [String: Any] in
            [
                "container": figure.environment.container,
                "environment": figure.environment.environment.rawValue,
                "megabytes": String(format: "%.1f", Double(figure.bytes) / 1_000_000),
                "owners": figure.owners,
            ]
        }
        return templates.page("telemetry", values)
    }
}
