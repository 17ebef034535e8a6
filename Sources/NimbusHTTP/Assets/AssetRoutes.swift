//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore
import NimbusWire

/// Where asset bytes go in and come out: `POST /assets/1/upload/{token}` (the URL
/// `assets/upload` answers) and `GET /assets/1/download/{token}/{file name}` (a record's
/// `downloadURL`, its `${f}` replaced by any name).
///
/// The tokens in the paths are the credentials: an upload URL allows one asset for one field
/// of one record, for 15 minutes; a download URL one asset, for about an hour. Either one
/// forged, expired or naming nothing gets the same `404`.
struct AssetRoutes: Sendable {
    let assets: AssetService

    func add(to router: some RouterMethods<NimbusRequestContext>) {
        router.post("/assets/1/upload/:token", use: upload)
        router.get("/assets/1/download/:token/:file", use: download)
        router.head("/assets/1/download/:token/:file", use: download)
    }

    @Sendable
    private func upload(_ request: Request, context: NimbusRequestContext) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        // A multipart body is a little larger than its file: only a raw body's length is the asset's.
        let isMultipart = request.headers[.contentType]?.lowercased().hasPrefix("multipart/") ?? false
        let declared = isMultipart ? nil : request.headers[.contentLength].flatMap(Int64.init)
        var begun: (grant: AssetUploadGrant, ingest: AssetIngest)?
        var refusal: NimbusError?
        do {
            begun = try await assets.beginUpload(token: token, declaredSize: declared)
        } catch {
            refusal = error
        }
        guard let (grant, ingest) = begun else {
            let error = refusal ?? NimbusError(.internalError, "internal error")
            guard error.code == .limitExceeded || error.code == .quotaExceeded else { throw error }
            // Refused before a byte is read.
            var rest = request.body.makeAsyncIterator()
            return tooLarge(error, bodyRead: try await AssetUploadBody.drain(&rest), context: context)
        }
        let described: AssetUploadBody.Described
        do {
            described = try await AssetUploadBody.read(request.body, headers: request.headers, into: ingest)
        } catch let refused as AssetUploadTooLarge {
            return tooLarge(refused.error, bodyRead: refused.bodyRead, context: context)
        } catch {
            ingest.discard()
            throw error
        }
        let uploaded = try await assets.finishUpload(ingest, grant: grant, contentType: described.contentType, fileName: described.fileName)
        return JSONResponse.ok(
            AssetUploadedResponse(fileChecksum: uploaded.fileChecksum, size: uploaded.size, receipt: uploaded.receipt).jsonBytes()
        )
    }

    /// `413` in the CloudKit shape; if the body was not read to its end, the connection closes.
    private func tooLarge(_ error: NimbusError, bodyRead: Bool, context: NimbusRequestContext) -> Response {
        var response = CloudKitErrorResponse(error: error, requestID: context.requestID).response()
        response.status = .contentTooLarge
        if !bodyRead { response.headers[.connection] = "close" }
        return response
    }

    @Sendable
    private func download(_ request: Request, context: NimbusRequestContext) async throws -> Response {
        let opened = try await assets.openDownload(token: context.parameters.get("token") ?? "")
        let asset = opened.asset
        let tag = "\"\(asset.checksum)\""
        var headers = AssetDownloadHeaders.make(for: asset, requestedName: context.parameters.get("file"), etag: tag)
        if let match = request.headers[.ifNoneMatch], match == tag || match == "*" {
            return Response(status: .notModified, headers: headers)
        }
        var range: ClosedRange<Int64>? = nil
        if let header = request.headers[.range], request.headers[.ifRange].map({ $0 == tag }) ?? true {
            switch ByteRange.parse(header, size: asset.size) {
            case .whole: break
            case .range(let parsed): range = parsed
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(asset.size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        let status: HTTPResponse.Status
        let length: Int64
        if let range {
            status = .partialContent
            length = range.upperBound - range.lowerBound + 1
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(asset.size)"
        } else {
            status = .ok
            length = asset.size
        }
        headers[.contentLength] = String(length)
        if request.method == .head || length == 0 { return Response(status: status, headers: headers) }
        let bytes = opened.bytes(in: range)
        return Response(status: status, headers: headers, body: ResponseBody(asyncSequence: bytes.map { ByteBuffer(bytes: $0) }))
    }
}
