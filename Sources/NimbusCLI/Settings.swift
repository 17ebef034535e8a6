//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// The process's environment as Nimbus reads settings from it: a variable set to nothing (or
/// to spaces) counts as not set, as a compose file's `${PORT}` gives when PORT is unset. Every
/// subcommand reads the environment through this, so the rule is the same for every setting.
enum Settings {
    /// Read once: a process's environment does not change while it runs.
    static let environment: [String: String] = ProcessInfo.processInfo.environment.filter {
        !$0.value.trimmingCharacters(in: .whitespaces).isEmpty
    }
}
