//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns records into `records` rows and back.
///
/// Plain fields are a JSON object of field value dictionaries, so SQL can read a field with the
/// dialect's JSON accessor. Encrypted fields are one AES-GCM sealed JSON object in their own
/// column; their clear text is never written.
struct RecordRowCodec {
    /// The columns ``record(from:zoneID:decodingFields:)`` reads, in order.
    static let columns = """
        record_name, record_type, change_tag, parent_name, fields, encrypted_fields, \
        created_at, created_by, created_device, modified_at, modified_by, modified_device, share_name, is_share_root
        """
    /// ``columns``, each qualified with the table alias `r`, for statements that join records.
    /// Made once: splitting and filtering the list on every lookup cost a tenth of its time.
    static let columnsOfAliasR = qualifiedColumns("r")

    private static func qualifiedColumns(_ alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.filter { !$0.isWhitespace })" }.joined(separator: ", ")
    }

    /// How many columns ``columns`` names: a query may select more after them.
    static let columnCount = 14
    /// The index of `share_name` in ``columns``.
    static let shareColumn = 12

    let cipher: FieldCipher
    let tenant: Tenant
    let zoneName: String

    /// Reads a row selected with ``columns``; without `decodingFields`, the record's fields
    /// (plain and encrypted) are left empty, unread.
    func record(from row: SQLRow, zoneID: ZoneID, decodingFields: Bool = true) throws -> Record {
        let name = row.string(0)
        var record = Record(
            recordID: RecordID(recordName: name, zoneID: zoneID),
            recordType: row.string(1),
            recordChangeTag: row.string(2),
            parentRecordName: row[3].text,
            created: ChangeStamp(timestamp: row.int(6), userRecordName: row.string(7), deviceID: row.string(8)),
            modified: ChangeStamp(timestamp: row.int(9), userRecordName: row.string(10), deviceID: row.string(11))
        )
        record.containingShare = row[Self.shareColumn].text
        if row.int(13) != 0 { record.shareRecordName = record.containingShare }
        guard decodingFields else { return record }
        var stored = row.string(4)
        record.fields = try stored.withUTF8 { try decodeFields($0) }
        if let sealed = row[5].blob, !sealed.isEmpty {
            let opened = Array(try cipher.open(sealed, identity: identity(of: name)))
            record.encryptedFields = try opened.withUnsafeBufferPointer { try decodeFields($0) }
        }
        return record
    }

    /// The `fields` column of a record.
    func fieldsColumn(_ record: Record) throws -> SQLValue {
        var writer = JSONWriter()
        FieldValue.write(record.fields, to: &writer)
        return .text(String(decoding: writer.bytes, as: UTF8.self))
    }

    /// The `encrypted_fields` column of a record: NULL when it has none.
    func encryptedColumn(_ record: Record) throws -> SQLValue {
        guard !record.encryptedFields.isEmpty else { return .null }
        var writer = JSONWriter()
        FieldValue.write(record.encryptedFields, to: &writer)
        return .blob(try cipher.seal(Data(writer.bytes), identity: identity(of: record.recordID.recordName)))
    }

    /// Reads a stored fields object: straight from its bytes when it holds what the server
    /// writes, through the JSON tree otherwise (the two readers agree; tests compare them).
    private func decodeFields(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [NameKey: FieldValue] {
        var decoder = RecordWireDecoder()
        if let fields = decoder.fields(in: bytes) { return fields }
        do {
            return try FieldValue.read(fields: try JSONParser.parse(Array(bytes)), at: "fields")
        } catch {
            throw StoreError(.database, detail: "stored fields do not parse: \(error)")
        }
    }

    private func identity(of recordName: String) -> String {
        "\(tenant.container)\u{0}\(tenant.environment.rawValue)\u{0}\(tenant.owner)\u{0}\(zoneName)\u{0}\(recordName)"
    }
}
