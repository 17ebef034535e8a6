//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The bytes of one statement's text and blob parameters, which SQLite reads where they lie
/// (`SQLITE_STATIC`) until the statement is reset and its bindings cleared.
///
/// One buffer per connection, kept from statement to statement: no allocation per value, nor
/// per statement once it is large enough. Not thread-safe, as its connection is not.
final class BindBuffer {
    /// A buffer grown past this for a large statement (a batch of big records) is given back
    /// once the statement is done, so an idle connection does not hold it.
    static let keptCapacity = 64 * 1024
    private static let initialCapacity = 4 * 1024

    private var storage = UnsafeMutableRawBufferPointer.allocate(byteCount: initialCapacity, alignment: 1)

    deinit {
        storage.deallocate()
    }

    /// Makes room for `byteCount` bytes from the start. Moves nothing: the values bound from the
    /// buffer before must already be unbound.
    func reserve(_ byteCount: Int) {
        guard byteCount > storage.count else { return }
        storage.deallocate()
        storage = .allocate(byteCount: max(byteCount, storage.count * 2), alignment: 1)
    }

    /// Copies `bytes` to `offset` (within what ``reserve(_:)`` made room for); their count.
    func copy<Bytes: Collection<UInt8>>(_ bytes: Bytes, at offset: Int) -> Int {
        let target = UnsafeMutableRawBufferPointer(rebasing: storage[offset...])
        target.copyBytes(from: bytes)
        return bytes.count
    }

    /// Where the bytes copied to `offset` start: never nil, even for none (SQLite binds a nil
    /// pointer as NULL).
    func address(at offset: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(storage.baseAddress!) + min(offset, storage.count - 1)
    }

    /// Gives back a buffer grown past ``keptCapacity``. Only once nothing is bound from it.
    func shrinkIfLarge() {
        guard storage.count > Self.keptCapacity else { return }
        storage.deallocate()
        storage = .allocate(byteCount: Self.initialCapacity, alignment: 1)
    }
}
