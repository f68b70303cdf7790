import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default (one fewer than the cores) runs one file at a time on a 2-core machine, while
    // most files spend their time waiting on bot processes, redis, timers and sockets rather than on
    // the CPU: two at a time there took the suite from about 600 s to about 340 s; with the crash,
    // failover and queue files since, three at a time took it from about 580 s to about 520 s.
    // Four took it from 379 s to 353 s on a quiet machine, but left tests waiting on jobs short of
    // CPU whenever anything else ran: three it stays.
    maxWorkers: Math.max(3, availableParallelism()),
    // The last line of a run says which tests a missing local tool skipped (test/local-tools.ts).
    reporters: ["default", "./test/local-tools-reporter.ts"],
  },
});
