import { startApp } from "./app.js";
import { ConfigError, loadConfig } from "./core/config.js";
import { createLogger } from "./core/log.js";
import { requireKeyPath } from "./core/startup.js";

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
  requireKeyPath(config);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Cannot start: ${error.message}`);
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
  if (error instanceof ConfigError) console.error(`Cannot start: ${error.message}`);
  else logger.fatal({ err: error }, "could not start");
  process.exit(1);
}
