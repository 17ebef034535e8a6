//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Where assets are kept in an S3-compatible object store (Amazon S3, MinIO, Cloudflare R2,
/// Garage): what several server instances on one PostgreSQL database share.
public struct S3Configuration: Sendable, Hashable {
    /// The store's endpoint, `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:9000`
    /// (plain HTTP only to a loopback address, as for every other service Nimbus calls).
    public var endpoint: String
    /// The bucket; Nimbus does not create it.
    public var bucket: String
    /// The region requests are signed for (`us-east-1` for most compatible stores).
    public var region: String
    /// The access key's ID.
    public var accessKeyID: String
    /// The access key's secret: never printed or logged.
    public var secretAccessKey: String
    /// Prepended to every object's key, so one bucket can hold several deployments.
    public var keyPrefix: String

    /// Creates a configuration.
    public init(endpoint: String, bucket: String, region: String, accessKeyID: String, secretAccessKey: String, keyPrefix: String = "assets/") {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.bucket = bucket
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.keyPrefix = keyPrefix
    }
}

extension S3Configuration: RedactedDescription {
    var redactedProperties: [(label: String, value: String)] {
        [
            ("endpoint", endpoint), ("bucket", bucket), ("region", region), ("accessKeyID", accessKeyID),
            ("secretAccessKey", "set (redacted)"), ("keyPrefix", keyPrefix),
        ]
    }
}
