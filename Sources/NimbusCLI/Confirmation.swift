//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation

/// `--yes`, for commands that destroy something: without it, they ask on a terminal, and
/// refuse when there is no terminal to ask (a script must say it means it).
struct Confirmation: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Do it without asking.") var yes = false

    /// Goes on when `--yes` was given or the person at the terminal answers yes.
    /// - Parameter what: what will be destroyed, as a question's subject: "delete zone Notes
    ///   and every record in it".
    func confirm(_ what: String) throws {
        if yes { return }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandFailure(description: "this would \(what); pass --yes to confirm (there is no terminal to ask)")
        }
        FileHandle.standardError.write(Data("This will \(what). Go on? [y/N] ".utf8))
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard answer == "y" || answer == "yes" else { throw CommandFailure(description: "nothing was changed") }
    }
}
