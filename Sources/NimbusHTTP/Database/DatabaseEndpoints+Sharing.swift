//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusWire

extension DatabaseEndpoints {
    /// `records/resolve` and `records/accept`, under any database (clients differ).
    func resolveShares(accept: Bool) async throws(NimbusError) -> [UInt8] {
        let request = try RecordsResolveRequest.parse(body)
        let lookups = request.shortGUIDs.map {
            ShareLookup(shortGUID: $0.value, shouldFetchRootRecord: $0.shouldFetchRootRecord, rootRecordDesiredKeys: $0.rootRecordDesiredKeys)
        }
        let results =
            accept
            ? try await database.acceptShares(lookups, access: access)
            : try await database.resolveShares(lookups, access: access)
        return encode(
            ShareMetadataResponse(
                results: zip(lookups, results).map { lookup, result in
                    switch result {
                    case .success(let metadata):
                        .metadata(
                            WireShareMetadata(
                                shortGUID: metadata.shortGUID,
                                containerIdentifier: metadata.container,
                                environment: metadata.environment.rawValue,
                                zoneID: metadata.zoneID,
                                share: metadata.share,
                                rootRecordName: metadata.rootRecordName,
                                rootRecord: metadata.rootRecord,
                                participantRole: metadata.participantRole,
                                participantStatus: metadata.participantStatus,
                                participantPermission: metadata.participantPermission,
                                ownerIdentity: metadata.ownerIdentity
                            )
                        )
                    case .failure(let error):
                        .error(shareError(error, shortGUID: lookup.shortGUID))
                    }
                }
            )
        )
    }

    private func shareError(_ error: NimbusError, shortGUID: String) -> WireError {
        var wire = itemError(error)
        wire.shortGUID = shortGUID
        return wire
    }
}
