import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { createInterface } from "node:readline";

/**
 * The real entry point in a process of its own, configured by env as an operator runs it, for
 * the tests and benchmarks that kill it: `src/main.ts` through tsx (no build needed), or
 * `dist/main.js` after `npm run build`. Its log lines (pino JSON on stdout, errors on stderr) are
 * kept, the last ones, for the message of a failed wait.
 */

const root = new URL("..", import.meta.url).pathname;
const KEPT_LINES = 200;

export type Entry = "src" | "dist";

/**
 * The Node flags `npm start` gives the bot (its heap ceiling and V8 settings, which decide how
 * much garbage V8 lets pile up before collecting): `dist/main.js` runs with them here, and the
 * benchmarks' and memory tests' bot processes too.
 */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    scripts: { start: string };
  };
  return pkg.scripts.start
    .split(/\s+/)
    .filter((word) => word.startsWith("--") && !word.startsWith("--env-file"));
}

export class BotProcess {
  /** Resolves with the exit code (null after a signal). */
  readonly exited: Promise<number | null>;
  private readonly lines: string[] = [];
  private started = false;
  /** The port its HTTP server took, from the line it logs once it listens. */
  private served: number | undefined;

  private constructor(
    private readonly child: ChildProcess,
    logFile: string | undefined,
  ) {
    this.exited = new Promise((resolve) => child.once("exit", resolve));
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on("line", (line) => {
        if (line.includes('"media bot started"')) this.started = true;
        if (line.includes('"HTTP: serving /healthz'))
          this.served = (JSON.parse(line) as { port?: number }).port;
        if (logFile) appendFileSync(logFile, `${line}\n`);
        this.lines.push(line);
        if (this.lines.length > KEPT_LINES) this.lines.shift();
      });
    }
  }

  /**
   * Starts the bot with only PATH from the caller's environment, and `env`. Its HTTP server takes
   * any free port unless `env` names one, so that bots started side by side never collide.
   * With `logFile`, every line it logs is also appended there (the whole life, not only the tail).
   */
  static start(env: Record<string, string>, entry: Entry = "src", logFile?: string): BotProcess {
    const args = entry === "src" ? ["--import", "tsx", "src/main.ts"] : [...startFlags(), "dist/main.js"];
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        LOG_LEVEL: "info",
        ...(env.PORT === undefined && env.SLACK_PORT === undefined && { PORT: "0" }),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new BotProcess(child, logFile);
  }

  /** Where its HTTP server listens (known once it is ready): with PORT 0 it takes any free port. */
  get origin(): string {
    if (this.served === undefined) throw new Error(`the bot has not said where it listens:\n${this.tail()}`);
    return `http://127.0.0.1:${this.served}`;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Resolves once the bot logged that it started (every platform attached, jobs taken up). */
  async ready(timeoutMs = 30_000): Promise<void> {
    const exitedEarly = this.exited.then((code) => {
      throw new Error(`the bot exited (${code}) before it started:\n${this.tail()}`);
    });
    await Promise.race([
      until(
        () => this.started,
        timeoutMs,
        () => this.tail(),
      ),
      exitedEarly,
    ]);
  }

  /** SIGKILL, as the out-of-memory killer or `kill -9` does; resolves once the process is gone. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    await this.exited;
  }

  tail(lines = 40): string {
    return this.lines.slice(-lines).join("\n");
  }
}

/** A port nobody listens on now, for a bot whose Slack URL must be known before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Polls `check` every 20 ms until it gives something (an async check's answer, not its promise);
 * the error says what was awaited.
 */
export async function until<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs: number,
  what: () => string,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
