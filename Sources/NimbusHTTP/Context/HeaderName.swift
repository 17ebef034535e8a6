//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes

/// The CloudKit header names Nimbus reads and writes. HTTP matches them case-insensitively, so
/// Foundation clients' `X-Apple-Cloudkit-Request-Keyid` spelling works too.
enum HeaderName {
    static let keyID = HTTPField.Name("X-Apple-CloudKit-Request-KeyID")!
    static let date = HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!
    static let signature = HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!
    static let requestUUID = HTTPField.Name("X-Apple-Request-UUID")!
    static let webAuthToken = HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!
    /// Nimbus extension: the device a request comes from, not notified of its own changes.
    static let deviceID = HTTPField.Name("X-Nimbus-Device-ID")!
}
