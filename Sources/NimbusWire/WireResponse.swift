//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// A response body, written directly as JSON bytes.
///
/// Responses are written by hand rather than through `JSONEncoder`: they are produced on every
/// request, and the generic `Codable` machinery cost more than the rest of a lookup.
package protocol WireResponse: Sendable {
    /// Writes the value as JSON.
    func write(to writer: inout JSONWriter, options: WireOptions)
}

/// How responses are written.
public struct WireOptions: Sendable {
    /// CKWS `numbersAsStrings`: 64-bit integers and timestamps as JSON strings.
    public var numbersAsStrings: Bool

    /// Creates options; numbers are written as JSON numbers by default.
    public init(numbersAsStrings: Bool = false) {
        self.numbersAsStrings = numbersAsStrings
    }
}

extension WireResponse {
    /// The value as UTF-8 JSON.
    package func jsonBytes(options: WireOptions = WireOptions()) -> [UInt8] {
        var writer = JSONWriter()
        write(to: &writer, options: options)
        return writer.bytes
    }
}
