//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Holds a rarely present value out of line, compared and hashed by value.
///
/// For large optional members of values that are copied and moved often: a ``Record``'s share
/// details (only share records have them) and a ``NimbusError``'s server record (only conflicts
/// carry one). Inline, each would make every record, every error and every `Result` of a record
/// hundreds of bytes larger.
final class ValueBox<Value: Hashable & Sendable>: Sendable, Hashable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    static func == (lhs: ValueBox, rhs: ValueBox) -> Bool {
        lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
