//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
public import NimbusModel

/// Great-circle distances for `NEAR` and for sorting by a relative location.
///
/// The haversine formula on a sphere of the Earth's mean radius: within 0.5% of the ellipsoid,
/// which is what a "within 5 km" filter needs. The SQL store computes the same formula in SQL;
/// a sort by distance orders by whole millimetres, so the engine's figure for a page's last
/// record and the database's agree exactly even where their floating-point results differ in
/// the last bits.
public enum GeoDistance {
    /// The Earth's mean radius (IUGG), in kilometres.
    public static let earthRadius = 6371.0088

    /// The distance between two locations, in kilometres.
    public static func kilometres(from origin: Location, to location: Location) -> Double {
        let radians = Double.pi / 180
        let latitudeDelta = (location.latitude - origin.latitude) * radians
        let longitudeDelta = (location.longitude - origin.longitude) * radians
        let a =
            pow(sin(latitudeDelta / 2), 2) + cos(origin.latitude * radians) * cos(location.latitude * radians)
            * pow(sin(longitudeDelta / 2), 2)
        return 2 * earthRadius * asin(min(1, sqrt(a)))
    }

    /// A distance in kilometres as the whole millimetres a sort compares.
    public static func millimetres(_ kilometres: Double) -> Int64 {
        // floor(x + 0.5), as the SQL store rounds: both engines' round() differ at halves.
        Int64((kilometres * 1_000_000 + 0.5).rounded(.down))
    }
}
