//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Testing

@testable import NimbusEngine

@Suite("token digests: the SHA-256 the credential caches key by")
struct TokenDigestTests {
    @Test("the stored form is the SHA-256 in lowercase hex (FIPS 180-2 test vectors)")
    func vectors() {
        #expect(TokenDigest(token: "abc").hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(TokenDigest(token: "").hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            TokenDigest(token: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hex
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
        #expect(Credentials.hash("abc") == TokenDigest(token: "abc").hex)
    }

    @Test("tokens as the server makes them: equal tokens are equal keys, different ones differ")
    func keys() {
        let tokens = (0..<200).map { _ in Credentials.makeWebAuthToken() } + (0..<200).map { _ in Credentials.makeAPIToken() }
        let digests = tokens.map { TokenDigest(token: $0) }
        #expect(Set(digests).count == tokens.count)
        for (token, digest) in zip(tokens, digests) {
            // The same text built anew (not sharing storage) gives the same key.
            let copy = String(decoding: Array(token.utf8), as: UTF8.self)
            #expect(TokenDigest(token: copy) == digest)
            #expect(TokenDigest(token: copy).hashValue == digest.hashValue)
        }
        // A non-ASCII token hashes its UTF-8 bytes.
        #expect(TokenDigest(token: "é").hex == "4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c")
    }
}
