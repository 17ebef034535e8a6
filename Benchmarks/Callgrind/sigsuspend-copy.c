// SPDX-License-Identifier: Apache-2.0
//
// Preloaded into `nimbus serve` when the load harness counts its instructions under valgrind
// (Sources/NimbusLoad/InstructionCounts.swift): valgrind 3.19 edits the mask passed to sigsuspend in place, and
// libdispatch passes a constant one, so the edit faults. This passes a writable copy.
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
