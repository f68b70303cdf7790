import { startApp } from "./app.js";
import { createLogger } from "./core/base/log.js";
import { ConfigError, loadConfig } from "./core/config/config.js";
import { isExplained, requireKeyPath, startupLine } from "./core/config/startup.js";
import { guardProcess } from "./process-guard.js";

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
  requireKeyPath(config);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(startupLine(error));
  process.exit(1);
}

const logger = createLogger({ level: config.logLevel });
/** Within Docker's 10 s, leaving time to close the platforms and the store. */
const STOP_DEADLINE_MS = 7_000;
guardProcess(logger);
try {
  const app = await startApp(config, logger);
  // Docker sends SIGKILL 10 s after SIGTERM: what is in flight gets most of that, then the jobs are
  // handed back so the next instance (or this one restarted) takes them at once. A second signal
  // means "now".
  const shutdown = (signal: string) => {
    logger.info({ signal, deadlineMs: STOP_DEADLINE_MS }, "stopping");
    process.once(signal, () => process.exit(1));
    app.stop({ deadlineMs: STOP_DEADLINE_MS }).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "stopped with an error");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
} catch (error) {
  // An unforeseen failure keeps its stack in the (redacted) log; every one ends in one line.
  if (!isExplained(error)) logger.fatal({ err: error }, "could not start");
  console.error(startupLine(error));
  process.exit(1);
}
