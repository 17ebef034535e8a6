//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// CPU time processes have used, from `/proc`: what a scenario cost the server and the
/// database, per request.
///
/// Under load, beside the rates: CPU time per request moves far less between runs than a rate
/// does, since it does not depend on how the two cores were shared out with the load generator,
/// only on the work. Its exact counterpart, without the noise, is the instruction count of one
/// request at a time (``InstructionCounts``, `--instructions`).
enum ProcessCPU {
    /// User plus system seconds the process (every thread) has used so far, or 0 if it is gone.
    static func seconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        // After "pid (comm) " come state, ppid, ...; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The seconds used so far by every process whose command is `name` (PostgreSQL's postmaster
    /// and backends: "postgres"), of every cluster on the machine: benchmark with one running.
    static func seconds(ofProcessesNamed name: String) -> Double {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).reduce(0) { total, pid in
            guard let command = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
                command.trimmingCharacters(in: .whitespacesAndNewlines) == name
            else { return total }
            return total + seconds(of: pid)
        }
    }
}
