//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Parses the ISO 8601 dates clients put in `X-Apple-CloudKit-Request-ISO8601Date`.
///
/// Clients differ: `2016-01-25T22:15:43Z` (MistKit), `...43.123456Z` (CloudKitPy's
/// `isoformat()+'Z'`), `...43+00:00` (OpenCloudKit). All are accepted.
enum ISO8601Timestamp {
    /// Milliseconds since 1970-01-01 UTC, or `nil` if the text is not such a date.
    static func milliseconds(from text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116,
            bytes[13] == 58, bytes[16] == 58,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale: Int64 = 100
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                millis += Int64(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offsetMinutes: Int64 = 0
        guard index < bytes.count else { return nil }
        if bytes[index] == 90 || bytes[index] == 122 {
            index += 1
        } else if bytes[index] == 43 || bytes[index] == 45 {
            let sign: Int64 = bytes[index] == 45 ? -1 : 1
            let hasColon = index + 3 < bytes.count && bytes[index + 3] == 58
            guard let hours = number(index + 1, 2), let minutes = number(index + (hasColon ? 4 : 3), 2) else { return nil }
            offsetMinutes = sign * (hours * 60 + minutes)
            index += hasColon ? 6 : 5
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second - offsetMinutes * 60
        return seconds * 1000 + millis
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
