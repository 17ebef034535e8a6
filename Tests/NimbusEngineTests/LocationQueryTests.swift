//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusStore
import Testing

/// `NEAR` and sorting by distance from a `relativeLocation`, computed in SQL on the suite's
/// database (SQLite, or PostgreSQL under the test script).
@Suite("records/query: locations")
struct LocationQueryTests {
    private static let zone = ZoneID(zoneName: "Places", ownerRecordName: "")
    private static let berlin = Location(latitude: 52.520_008, longitude: 13.404_954)

    /// Distances from the centre of Berlin: the Brandenburg Gate about 1.9 km, Potsdam about
    /// 27 km, Hamburg about 255 km, Munich about 504 km.
    private static let places: [String: Location] = [
        "berlin": Location(latitude: 52.516_275, longitude: 13.377_704),
        "potsdam": Location(latitude: 52.390_569, longitude: 13.064_473),
        "hamburg": Location(latitude: 53.551_086, longitude: 9.993_682),
        "munich": Location(latitude: 48.137_154, longitude: 11.576_124),
    ]

    private static func seed(_ f: EngineFixture) async throws {
        try await f.makeZone("Places", for: f.alice)
        var operations = places.map { name, location in RecordOperation.note(name, ["place": .location(location)]) }
        operations.append(.note("nowhere", ["title": .string("no place")]))
        _ = try await f.modify(operations, zone: "Places")
    }

    private static func query(
        _ f: EngineFixture,
        filters: [Filter] = [],
        sorts: [SortDescriptor] = [],
        limit: Int? = nil,
        marker: String? = nil
    ) async throws(NimbusError) -> QueryResult {
        try await f.database.queryRecords(
            Query(recordType: "Note", filters: filters, sortDescriptors: sorts),
            inZone: zone,
            resultsLimit: limit,
            continuationMarker: marker,
            access: f.access(f.alice)
        )
    }

    @Test("NEAR finds what lies within the distance, in kilometres")
    func near() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            for (kilometres, expected) in [(2.5, ["berlin"]), (30, ["berlin", "potsdam"]), (300, ["berlin", "hamburg", "potsdam"])] {
                let found = try await Self.query(f, filters: [.near("place", Self.berlin, withinKilometres: kilometres)])
                #expect(found.records.map(\.recordID.recordName).sorted() == expected, "within \(kilometres) km")
            }
        }
    }

    @Test("sorting by distance from a relativeLocation, both ways, pages without repeats, places missing last")
    func sortByDistance() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            let nearest = SortDescriptor("place", relativeLocation: Self.berlin)
            let ascending = try await Self.query(f, sorts: [nearest])
            #expect(ascending.records.map(\.recordID.recordName) == ["berlin", "potsdam", "hamburg", "munich", "nowhere"])
            var farthest = nearest
            farthest.ascending = false
            let descending = try await Self.query(f, sorts: [farthest])
            #expect(descending.records.map(\.recordID.recordName) == ["munich", "hamburg", "potsdam", "berlin", "nowhere"])

            var names: [String] = []
            var marker: String?
            repeat {
                let page = try await Self.query(
                    f,
                    filters: [.near("place", Self.berlin, withinKilometres: 600)],
                    sorts: [nearest],
                    limit: 2,
                    marker: marker
                )
                names += page.records.map(\.recordID.recordName)
                marker = page.continuationMarker
            } while marker != nil
            #expect(names == ["berlin", "potsdam", "hamburg", "munich"])
        }
    }

    @Test("the engine's distance agrees with the database's, to the millimetre it sorts by")
    func distanceAgrees() {
        let potsdam = Self.places["potsdam"]!
        let kilometres = GeoDistance.kilometres(from: Self.berlin, to: potsdam)
        #expect((26...28).contains(kilometres), "\(kilometres)")
        #expect(GeoDistance.kilometres(from: potsdam, to: potsdam) == 0)
        #expect(GeoDistance.millimetres(1.234_567_6) == 1_234_568)
    }

    @Test("NEAR needs a location, a distance and a location field; relativeLocation sorts need a location field")
    func badFilters() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            let refused: [([Filter], [SortDescriptor], String)] = [
                ([Filter("place", .near, .location(Self.berlin))], [], "needs a distance"),
                ([Filter("place", .near, .string("Berlin"), distance: 5)], [], "needs a LOCATION value"),
                ([.near("title", Self.berlin, withinKilometres: 5)], [], "needs a LOCATION field"),
                ([.near("place", Self.berlin, withinKilometres: -1)], [], "more than 0"),
                ([.near("place", Location(latitude: 95, longitude: 0), withinKilometres: 5)], [], "latitude must be within"),
                ([.near("___createTime", Self.berlin, withinKilometres: 5)], [], "system field"),
                ([Filter("title", .equals, .string("x"), distance: 5)], [], "takes no distance"),
                ([], [SortDescriptor("title", relativeLocation: Self.berlin)], "needs a LOCATION field"),
                ([], [SortDescriptor("place")], "cannot be used to sort"),
            ]
            for (filters, sorts, reason) in refused {
                do {
                    let found = try await Self.query(f, filters: filters, sorts: sorts)
                    Issue.record("\(filters) \(sorts) ran: \(found.records.map(\.recordID.recordName))")
                } catch let error as NimbusError {
                    #expect(error.code == .badRequest && error.reason.contains(reason), "\(error.reason)")
                }
            }
        }
    }

    @Test("the query dictionary carries a filter's distance and a sort's relativeLocation")
    func wire() throws {
        let json = """
            {"recordType": "Note",
             "filterBy": [{"comparator": "NEAR", "fieldName": "place", "distance": 2.5,
                           "fieldValue": {"value": {"latitude": 52.5, "longitude": 13.4}, "type": "LOCATION"}}],
             "sortBy": [{"fieldName": "place", "ascending": true, "relativeLocation": {"latitude": 52.5, "longitude": 13.4}}]}
            """
        let query = try Query.read(try JSONParser.parse(Array(json.utf8)), at: "query")
        let here = Location(latitude: 52.5, longitude: 13.4)
        #expect(query.filters == [.near("place", here, withinKilometres: 2.5)])
        #expect(query.sortDescriptors == [SortDescriptor("place", relativeLocation: here)])
        var writer = JSONWriter()
        query.write(to: &writer)
        #expect(try Query.read(try JSONParser.parse(writer.bytes), at: "query") == query)

        let unknown = #"{"recordType": "Note", "filterBy": [{"comparator": "NEARBY", "fieldName": "place", "fieldValue": {"value": 1}}]}"#
        #expect(throws: NimbusError.badRequest("unknown comparator 'NEARBY' at query.filterBy[0].comparator")) {
            _ = try Query.read(try JSONParser.parse(Array(unknown.utf8)), at: "query")
        }
    }
}
