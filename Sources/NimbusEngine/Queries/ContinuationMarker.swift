//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Query cursors: the position after the last record of a page, sealed to the query, zone and
/// tenant it came from, so a marker from another query (or a forged one) is a `BAD_REQUEST`.
struct ContinuationMarker {
    let sealer: TokenSealer

    func encode(_ position: QueryPosition, for request: RecordQuery) -> String {
        sealer.seal((try? JSONEncoder().encode(position)) ?? Data(), scope: scope(of: request))
    }

    func decode(_ marker: String, for request: RecordQuery) throws(NimbusError) -> QueryPosition {
        guard let payload = sealer.open(marker, scope: scope(of: request)),
            let position = try? JSONDecoder().decode(QueryPosition.self, from: payload)
        else {
            throw .badRequest("continuationMarker is not valid for this query")
        }
        return position
    }

    private func scope(of request: RecordQuery) -> String {
        "query|\(request.tenant)|\(request.isZoneWide ? "*" : request.zoneName)|\(request.query)"
    }
}
