import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { APIMessage } from "discord-api-types/v10";
import { afterAll, beforeAll } from "vitest";
import { shown as discordShown } from "../discord/harness.js";
import { type FakeDiscord, type InjectedInteraction, startFakeDiscord } from "../fakes/discord/index.js";
import { type Emulator, startEmulator } from "../fakes/media-api/index.js";
import { solidPng } from "../fakes/media-api/png.js";
import { type FakeSlack, type SlackFile, type SlackView, startFakeSlack } from "../fakes/slack/index.js";
import type { BotProcessOptions } from "./bot-process.js";

/**
 * The bot as a real child process (test/faults/bot-process.ts) on the fake Discord and the fake
 * Slack at once, against the media API emulator. A fault that escaped its owner either ends the
 * child (exitCode) or shows up as a line of the process guard in its log (strays): both are
 * failures of the fix at the source, and neither touches the test runner.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
const LOADING = 1 << 7;
/** The bot's timeout per media call: a slower answer is a timeout within a second. */
export const CLIENT_TIMEOUT_MS = 1_000;

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export class FaultWorld {
  readonly log: LogLine[] = [];
  private exitCode: number | null = null;
  private stderr = "";
  private child!: ChildProcess;
  private eventsUrl = "";

  private constructor(
    readonly emu: Emulator,
    readonly discord: FakeDiscord,
    readonly slack: FakeSlack,
    /** The bot's files: its store is `bot.sqlite` in here. */
    readonly dir: string,
  ) {}

  static async start(): Promise<FaultWorld> {
    const emu = await startEmulator({ timeScale: 0.002 });
    emu.account("test-key").creditsLimit = 1_000_000;
    const world = new FaultWorld(
      emu,
      await startFakeDiscord(),
      await startFakeSlack(),
      mkdtempSync(join(tmpdir(), "faults-")),
    );
    await world.spawn();
    return world;
  }

  private async spawn(): Promise<void> {
    const options: BotProcessOptions = {
      mediaUrl: this.emu.url,
      dir: this.dir,
      timeoutMs: CLIENT_TIMEOUT_MS,
      discord: { token: this.discord.token, restUrl: this.discord.restUrl, guildId: this.discord.guild.id },
      slack: {
        botToken: this.slack.botToken,
        signingSecret: this.slack.signingSecret,
        apiUrl: this.slack.apiUrl,
      },
    };
    this.child = spawn(
      process.execPath,
      ["--import", "tsx", "test/faults/bot-process.ts", JSON.stringify(options)],
      { cwd: root, stdio: ["pipe", "pipe", "pipe"] },
    );
    this.child.once("exit", (code, signal) => {
      this.exitCode = code ?? (signal ? 128 : -1);
    });
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    let pending = "";
    this.child.stdout?.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const parsed = JSON.parse(line) as LogLine & { ready?: boolean; eventsUrl?: string };
        if (parsed.ready) this.eventsUrl = parsed.eventsUrl ?? "";
        else this.log.push(parsed);
      }
    });
    await this.until(() => this.eventsUrl || this.exitCode !== null, 30_000);
    if (!this.eventsUrl) throw new Error(`the bot process did not start: ${this.stderr}`);
  }

  /** True while the bot process runs. */
  get alive(): boolean {
    return this.exitCode === null;
  }

  /** What the process guard caught: faults that escaped their owner. */
  strays(): LogLine[] {
    return this.log.filter((line) =>
      /unhandled rejection|stray request error|uncaught exception/.test(line.msg),
    );
  }

  /** Why the process died, for assertion messages. */
  get crash(): string {
    return this.stderr.slice(-2_000);
  }

  async close(): Promise<void> {
    if (this.alive) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve));
      this.child.stdin?.end();
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (this.alive) this.child.kill("SIGKILL");
    }
    await this.emu.close();
    await this.discord.close();
    await this.slack.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  until<T>(check: () => T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
    return this.discord.waitFor(check, timeoutMs);
  }

  // ---- Discord ------------------------------------------------------------------------------

  /** `/image edit` with one attached PNG, as the requester. */
  imageEdit(name = "photo.png"): Promise<InjectedInteraction> {
    return this.discord.sendCommand({
      name: "image",
      subcommand: "edit",
      options: { prompt: "add a hat" },
      attachments: [{ option: "image", name, contentType: "image/png", data: solidPng([200, 40, 40]) }],
    });
  }

  /** The first answer to an interaction once it is more than "thinking…", as shown text. */
  async answer(interaction: InjectedInteraction): Promise<string> {
    const message = await this.until((): APIMessage | undefined => {
      const original = this.discord.original(interaction.id);
      if (original && !((original.flags ?? 0) & LOADING)) return original;
      return this.discord.followups(interaction.id)[0];
    });
    return discordShown(message);
  }

  // ---- Slack --------------------------------------------------------------------------------

  /** `/media image edit …` opens the form; it is submitted with `file` in its image field. */
  async slackImageEdit(file: SlackFile): Promise<void> {
    const before = this.slack.views.length;
    await this.slack.slashCommand(this.eventsUrl, { text: "image edit add a hat" });
    const view: SlackView = await this.until(() => this.slack.views[before]);
    await this.slack.viewSubmission(this.eventsUrl, {
      viewId: view.id,
      values: { image: [file], prompt: "add a hat" },
      user: view.user,
    });
  }

  /** `/media <text>` on Slack, as the requester. */
  async slackCommand(text: string): Promise<void> {
    await this.slack.slashCommand(this.eventsUrl, { text });
  }

  /** The requester's ephemeral answers, newest last, as text. */
  slackEphemerals(): string[] {
    const requester = this.slack.users.requester.id;
    return this.slack
      .ephemerals()
      .filter((m) => m.user === requester)
      .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`);
  }

  slackPng(name = "photo.png", download?: 404 | "sign-in-page") {
    return this.slack.addUserFile(solidPng([200, 40, 40]), {
      name,
      mimetype: "image/png",
      ...(download && { download }),
    });
  }
}

/** One bot process and its fakes for all the tests of a file. */
export function faultWorldPerFile(use: (world: FaultWorld) => void): void {
  let world: FaultWorld | undefined;
  beforeAll(async () => {
    world = await FaultWorld.start();
    use(world);
  }, 40_000);
  afterAll(async () => {
    await world?.close();
  });
}
