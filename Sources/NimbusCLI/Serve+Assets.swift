//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusEngine
import NimbusServer

extension Serve {
    /// Asset limits: `NIMBUS_ASSET_MAX_BYTES` (the largest asset, 50 MB by default, up to 4 GiB)
    /// and `NIMBUS_ASSET_RETENTION_HOURS` (how long an upload no record references is kept,
    /// 24 by default).
    static func assetLimits(_ environment: SettingsValues) throws -> AssetService.Configuration {
        var limits = AssetService.Configuration()
        if let bytes = try number(environment["NIMBUS_ASSET_MAX_BYTES"], "NIMBUS_ASSET_MAX_BYTES", in: 1...(1 << 32)) {
            limits.maximumSize = Int64(bytes)
        }
        if let hours = try number(environment["NIMBUS_ASSET_RETENTION_HOURS"], "NIMBUS_ASSET_RETENTION_HOURS", in: 13...24 * 365) {
            limits.retention = .seconds(hours * 3600)
        }
        return limits
    }

    /// The S3-compatible store for assets, when `NIMBUS_S3_BUCKET` is set: with
    /// `NIMBUS_S3_ENDPOINT`, `NIMBUS_S3_REGION` (default `us-east-1`), `NIMBUS_S3_KEY_PREFIX`
    /// (default `assets/`), and the key in `NIMBUS_S3_ACCESS_KEY_ID` and
    /// `NIMBUS_S3_SECRET_ACCESS_KEY` (or AWS's own `AWS_ACCESS_KEY_ID` and
    /// `AWS_SECRET_ACCESS_KEY`). Without a bucket, assets stay in the data directory.
    static func s3(_ environment: SettingsValues) throws -> S3Configuration? {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        }
        guard let bucket = value("NIMBUS_S3_BUCKET") else {
            if value("NIMBUS_S3_ENDPOINT") != nil { throw ValidationError("NIMBUS_S3_ENDPOINT needs NIMBUS_S3_BUCKET") }
            return nil
        }
        guard let endpoint = value("NIMBUS_S3_ENDPOINT") else { throw ValidationError("NIMBUS_S3_BUCKET needs NIMBUS_S3_ENDPOINT") }
        guard let keyID = value("NIMBUS_S3_ACCESS_KEY_ID") ?? value("AWS_ACCESS_KEY_ID"),
            let secret = value("NIMBUS_S3_SECRET_ACCESS_KEY") ?? value("AWS_SECRET_ACCESS_KEY")
        else {
            throw ValidationError("the S3 store needs NIMBUS_S3_ACCESS_KEY_ID and NIMBUS_S3_SECRET_ACCESS_KEY")
        }
        return S3Configuration(
            endpoint: endpoint,
            bucket: bucket,
            region: value("NIMBUS_S3_REGION") ?? "us-east-1",
            accessKeyID: keyID,
            secretAccessKey: secret,
            keyPrefix: value("NIMBUS_S3_KEY_PREFIX") ?? "assets/"
        )
    }
}
