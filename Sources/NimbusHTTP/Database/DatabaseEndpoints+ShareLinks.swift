//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusWire

extension DatabaseEndpoints {
    /// `links/create|list|revoke|rotate` (Nimbus extensions): a share's extra invitation links,
    /// and the rotation of its main one.
    func shareLinks(_ operation: DatabaseRoute.Operation) async throws(NimbusError) -> [UInt8] {
        switch operation {
        case .linksRevoke:
            let request = try ShortGUIDRequest.parse(body)
            let link = try await database.revokeShareLink(shortGUID: request.shortGUID, access: access)
            return encode(ShareLinksResponse(links: [link], baseURL: publicBaseURL))
        case .linksList:
            let request = try ShareLinkRequest.parse(body)
            let links = try await database.shareLinks(shareName: request.shareName, inZone: request.zoneID, access: access)
            return encode(ShareLinksResponse(links: links, baseURL: publicBaseURL))
        case .linksRotate:
            let request = try ShareLinkRequest.parse(body)
            let shortGUID = try await database.rotateShareLink(shareName: request.shareName, inZone: request.zoneID, access: access)
            return encode(ShareLinksResponse(mainShortGUID: shortGUID, baseURL: publicBaseURL))
        default:
            let request = try ShareLinkRequest.parse(body)
            let link = try await database.createShareLink(
                shareName: request.shareName,
                inZone: request.zoneID,
                permission: request.permission,
                expiresAt: request.expiresAt,
                singleUse: request.singleUse,
                access: access
            )
            return encode(ShareLinksResponse(links: [link], baseURL: publicBaseURL))
        }
    }
}
