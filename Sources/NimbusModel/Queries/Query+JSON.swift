//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The CloudKit query dictionary, read by `records/query` and stored with query subscriptions.
extension Query {
    /// Reads `{recordType, filterBy[], sortBy[]}`.
    package static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> Query {
        let members = try json.object(at: path())
        let recordType = try members.required("recordType", at: path()).string(at: jsonPath(path(), "recordType"))
        var filters: [Filter] = []
        func filtersPath() -> String { jsonPath(path(), "filterBy") }
        for (index, element) in (try members.optional("filterBy")?.array(at: filtersPath()) ?? []).enumerated() {
            filters.append(try Filter.read(element, at: jsonPath(filtersPath(), index)))
        }
        var sorts: [SortDescriptor] = []
        func sortsPath() -> String { jsonPath(path(), "sortBy") }
        for (index, element) in (try members.optional("sortBy")?.array(at: sortsPath()) ?? []).enumerated() {
            func sortPath() -> String { jsonPath(sortsPath(), index) }
            let sort = try element.object(at: sortPath())
            let relativeLocation = try sort.optional("relativeLocation").map { location throws(NimbusError) in
                try Location.read(location, at: jsonPath(sortPath(), "relativeLocation"))
            }
            sorts.append(
                SortDescriptor(
                    try sort.required("fieldName", at: sortPath()).string(at: jsonPath(sortPath(), "fieldName")),
                    ascending: try sort.optional("ascending")?.bool(at: jsonPath(sortPath(), "ascending")) ?? true,
                    relativeLocation: relativeLocation
                )
            )
        }
        return Query(recordType: recordType, filters: filters, sortDescriptors: sorts)
    }

    /// Writes `{recordType, filterBy[], sortBy[]}`.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("recordType", recordType)
        writer.key("filterBy")
        writer.beginArray()
        for filter in filters { filter.write(to: &writer) }
        writer.endArray()
        writer.key("sortBy")
        writer.beginArray()
        for sort in sortDescriptors {
            writer.beginObject()
            writer.field("fieldName", sort.fieldName)
            writer.key("ascending")
            writer.bool(sort.ascending)
            if let location = sort.relativeLocation {
                writer.key("relativeLocation")
                location.write(to: &writer)
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}

extension Filter {
    /// Reads `{fieldName, comparator, fieldValue}`.
    package static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> Filter {
        let filter = try json.object(at: path())
        let name = try filter.required("comparator", at: path()).string(at: jsonPath(path(), "comparator"))
        guard let comparator = Filter.Comparator(rawValue: name.uppercased()) else {
            throw .badRequest("unknown comparator '\(name)' at \(jsonPath(path(), "comparator"))")
        }
        let field = try filter.required("fieldName", at: path()).string(at: jsonPath(path(), "fieldName"))
        let value = try FieldValue.read(dictionary: try filter.required("fieldValue", at: path()), at: jsonPath(path(), "fieldValue"))
        var distance: Double?
        if let json = filter.optional("distance") {
            guard let number = json.doubleValue else {
                throw JSONValue.wrongType(jsonPath(path(), "distance"), expected: "a number", found: json)
            }
            distance = number
        }
        return Filter(field, comparator, value.value, distance: distance)
    }

    /// Writes `{comparator, fieldName, fieldValue}`.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("comparator", comparator.rawValue)
        writer.field("fieldName", fieldName)
        writer.key("fieldValue")
        value.write(to: &writer)
        if let distance {
            writer.key("distance")
            writer.double(distance)
        }
        writer.endObject()
    }
}
