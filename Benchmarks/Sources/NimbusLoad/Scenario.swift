//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation

/// One load scenario: the requests its clients send, round robin over users and bodies.
struct Scenario {
    struct Request {
        var method: String
        var path: String
        var headers: [String: String]
        var body: String
    }

    var name: String
    var summary: String
    /// Records each request reads or writes, for records/s.
    var recordsPerRequest: Int
    var requests: [Request]

    static func all(session: LoadSession) -> [Scenario] {
        let users = session.webAuthTokens.indices
        let json = ["Content-Type": "application/json"]
        func modify(_ count: Int, salt: Int) -> String {
            let records = (0..<count).map { index in
                #"{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"load \#(salt)-\#(index)"},"count":{"value":\#(index)}}}}"#
            }
            return #"{"operations":[\#(records.joined(separator: ","))]}"#
        }
        // One request per user for every 37th of its seeded records.
        func perSeededRecord(_ endpoint: String, body: (Int) -> String) -> [Request] {
            users.flatMap { user in
                stride(from: 0, to: LoadSession.seedRecords, by: 37).map { index in
                    Request(method: "POST", path: session.privatePath(endpoint, user: user), headers: json, body: body(index))
                }
            }
        }
        let lookups = perSeededRecord("records/lookup") { index in
            #"{"zoneID":{"zoneName":"Seed"},"records":[{"recordName":"seed-\#(index)"}]}"#
        }
        let queries = users.flatMap { user in
            (0..<LoadSession.groups).map { group in
                Request(
                    method: "POST",
                    path: session.privatePath("records/query", user: user),
                    headers: json,
                    body:
                        #"{"zoneID":{"zoneName":"Seed"},"query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"group","fieldValue":{"value":"g\#(group)"}}],"sortBy":[{"fieldName":"count","ascending":false}]},"resultsLimit":20}"#
                )
            }
        }
        // A token search for one seeded record by its title's words; on SQLite it also reads
        // the search index's queue, which the saves before it leave partly full.
        let searches = perSeededRecord("records/query") { index in
            #"{"zoneID":{"zoneName":"Seed"},"query":{"recordType":"Note","filterBy":[{"comparator":"CONTAINS_ALL_TOKENS","fieldName":"allTokens","fieldValue":{"value":"seed \#(index)"}}]},"resultsLimit":20}"#
        }
        return [
            Scenario(
                name: "health",
                summary: "GET /health (HTTP ceiling)",
                recordsPerRequest: 0,
                requests: [Request(method: "GET", path: "/health", headers: [:], body: "")]
            ),
            Scenario(
                name: "current",
                summary: "users/current (authenticated, no record)",
                recordsPerRequest: 0,
                requests: users.map {
                    Request(method: "GET", path: session.privatePath("users/current", user: $0), headers: [:], body: "")
                }
            ),
            Scenario(
                name: "save1",
                summary: "records/modify, 1 record",
                recordsPerRequest: 1,
                requests: users.map {
                    Request(method: "POST", path: session.privatePath("records/modify", user: $0), headers: json, body: modify(1, salt: $0))
                }
            ),
            Scenario(
                name: "save200",
                summary: "records/modify, 200 records",
                recordsPerRequest: 200,
                requests: users.map {
                    Request(method: "POST", path: session.privatePath("records/modify", user: $0), headers: json, body: modify(200, salt: $0))
                }
            ),
            Scenario(name: "lookup", summary: "records/lookup, 1 record", recordsPerRequest: 1, requests: lookups),
            Scenario(name: "query", summary: "records/query, EQUALS + sort, 20 of 1,000", recordsPerRequest: 20, requests: queries),
            Scenario(name: "search", summary: "records/query, CONTAINS_ALL_TOKENS, 1 of 1,000", recordsPerRequest: 1, requests: searches),
            Scenario(
                name: "save1-s2s",
                summary: "records/modify, 1 record, server-to-server signed",
                recordsPerRequest: 1,
                requests: [signedSave(session: session, body: modify(1, salt: 999))]
            ),
        ]
    }

    /// A signed public-database save. The date is "now", which stays inside the server's
    /// five-minute window for the length of a run, so one signature serves every request.
    private static func signedSave(session: LoadSession, body: String) -> Request {
        let path = "/database/1/\(LoadSession.container)/development/public/records/modify"
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let date = formatter.string(from: Date())
        let hash = Data(SHA256.hash(data: Data(body.utf8))).base64EncodedString()
        let signature = (try? session.privateKey.signature(for: Data("\(date):\(hash):\(path)".utf8)).derRepresentation.base64EncodedString()) ?? ""
        return Request(
            method: "POST",
            path: path,
            headers: [
                "Content-Type": "application/json",
                "X-Apple-CloudKit-Request-KeyID": session.keyID,
                "X-Apple-CloudKit-Request-ISO8601Date": date,
                "X-Apple-CloudKit-Request-SignatureV1": signature,
            ],
            body: body
        )
    }
}
