//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A geographic location, as CloudKit's `LOCATION` field type carries it.
public struct Location: Sendable, Hashable {
    /// The latitude, in degrees.
    public var latitude: Double
    /// The longitude, in degrees.
    public var longitude: Double
    /// The radius of uncertainty of the coordinates, in meters.
    public var horizontalAccuracy: Double?
    /// The uncertainty of the altitude, in meters.
    public var verticalAccuracy: Double?
    /// The altitude, in meters.
    public var altitude: Double?
    /// The speed, in meters per second.
    public var speed: Double?
    /// The direction of travel, in degrees clockwise from true north.
    public var course: Double?
    /// Milliseconds since 1970-01-01 UTC.
    public var timestamp: Int64?

    /// Creates a location.
    public init(
        latitude: Double,
        longitude: Double,
        horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil,
        altitude: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        timestamp: Int64? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }
}
