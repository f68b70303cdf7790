import { startApp } from "./app.js";
import { ConfigError, loadConfig } from "./core/config.js";
import { createLogger } from "./core/log.js";
import { isExplained, startupLine } from "./core/startup.js";

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(startupLine(error));
  process.exit(1);
}

const logger = createLogger({ level: config.logLevel });
try {
  const app = await startApp(config, logger);
  // A stop lets polls and deliveries in flight finish, so no job is left half-delivered.
  const shutdown = (signal: string) => {
    logger.info({ signal }, "stopping");
    app.stop().then(
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
