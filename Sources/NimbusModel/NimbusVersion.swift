//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The release of Nimbus this build is: what `nimbus --version` prints and `/metrics` reports
/// in `nimbus_build_info`. Raised with each release; `-dev` between them.
public enum NimbusVersion {
    /// The version, semantic-versioning style.
    public static let current = "0.1.0-dev"
}
