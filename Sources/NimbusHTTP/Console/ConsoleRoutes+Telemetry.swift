//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird

extension ConsoleRoutes {
    /// `GET /console/telemetry?span=hour|day`.
    func telemetryPage(_ session: ConsoleSession, span: String?) -> Response {
        var values = frame("Telemetry", session: session, nav: "Telemetry")
        values.merge(TelemetryView.page(telemetry, day: span == "day")) { _, new in new }
        return templates.page("telemetry", values)
    }
}
