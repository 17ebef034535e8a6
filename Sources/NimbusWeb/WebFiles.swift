//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

// Bundle, for the module's resources, is in Foundation only.
import Foundation

/// The files Nimbus hands to browsers, bundled with the server: `js/nimbus.js` and its
/// declarations (the JavaScript client) and `apps/{name}/...` (the bundled apps).
///
/// They are read once, at first use, into memory (they are small), and looked up by their path
/// in that index only: a request can name nothing outside it, whatever its dots and slashes.
public enum WebFiles {
    /// One file: its bytes and what they are.
    public struct File: Sendable {
        /// The file's bytes.
        public let bytes: [UInt8]
        /// Its `Content-Type`.
        public let contentType: String
    }

    /// The file at `path` under the resources (`js/nimbus.js`), or `nil`.
    public static func file(at path: String) -> File? {
        index[path]
    }

    /// The text of every file in `folder` whose name ends with `.{fileExtension}`, by name
    /// without the extension (`console/layout.mustache` is `layout`).
    public static func texts(in folder: String, withExtension fileExtension: String) -> [String: String] {
        var texts: [String: String] = [:]
        for (path, file) in index where path.hasPrefix(folder + "/") && path.hasSuffix("." + fileExtension) {
            let name = path.dropFirst(folder.count + 1).dropLast(fileExtension.count + 1)
            guard !name.contains("/") else { continue }
            texts[String(name)] = String(decoding: file.bytes, as: UTF8.self)
        }
        return texts
    }

    /// Whether a bundled app of that name exists.
    public static func hasApp(_ name: String) -> Bool {
        index["apps/\(name)/index.html"] != nil
    }

    /// The names of the bundled apps.
    public static var apps: [String] {
        index.keys.compactMap { path in
            let parts = path.split(separator: "/")
            return parts.count == 3 && parts[0] == "apps" && parts[2] == "index.html" ? String(parts[1]) : nil
        }.sorted()
    }

    private static let index: [String: File] = {
        guard let root = Bundle.module.url(forResource: "Resources", withExtension: nil) else { return [:] }
        var files: [String: File] = [:]
        let rootPath = root.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let data = try? Data(contentsOf: url)
            else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(rootPath.count + 1))
            files[path] = File(bytes: Array(data), contentType: contentType(of: path))
        }
        return files
    }()

    static func contentType(of path: String) -> String {
        switch path.split(separator: ".").last {
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "ts": "application/typescript; charset=utf-8"
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json", "webmanifest": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: "application/octet-stream"
        }
    }
}
