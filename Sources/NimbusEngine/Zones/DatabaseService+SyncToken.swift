//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DatabaseService {
    /// The zone's current sync token: an opaque, sealed form of its change counter.
    ///
    /// `zones/list` and `zones/lookup` report it so a client can start syncing "from now".
    public func syncToken(for zone: Zone, access: DatabaseAccess) -> String {
        let scope = "zone|\(access.caller.container)|\(access.caller.environment.rawValue)|\(access.scope.rawValue)|\(zone.zoneID)"
        return sealer.seal(Data(String(zone.changeCounter).utf8), scope: scope)
    }
}
