import { describe, expect, it, vi } from "vitest";
import { type DiscordWorld, discordWorldPerFile } from "./harness.js";

/**
 * Interaction tokens live 15 minutes but a finished job's record is kept 30 days: the token is
 * kept only where a running job needs it (to edit its message) and leaves the record once the
 * result is delivered.
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

const working = (m: { embeds: { description?: string }[] }) => /Working/.test(m.embeds[0]?.description ?? "");
const jobIdOf = (message: { embeds: { footer?: { text: string } }[] }) =>
  /^Job (\S+)$/.exec(message.embeds[0]?.footer?.text ?? "")?.[1];

describe("a job's interaction token", () => {
  it("is kept with the running job's message only, and leaves the record when the job is delivered", async () => {
    world.emu.planNextJob("image", { durationMs: 1_500 });
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a fox with a short-lived token" },
    });
    const jobId = jobIdOf(await world.jobMessage(interaction, working))!;

    const running = (await world.stores.jobs.get(jobId))!;
    expect(JSON.stringify(running.conversation)).not.toContain(interaction.token);
    expect(running.message).toMatchObject({ live: { token: interaction.token } });

    await world.jobMessage(interaction);
    const delivered = await vi.waitFor(
      async () => {
        const job = await world.stores.jobs.get(jobId);
        expect(job?.delivery).toBe("delivered");
        return job!;
      },
      { timeout: 8_000, interval: 20 },
    );
    expect(delivered.state).toBe("done");
    expect(JSON.stringify(delivered)).not.toContain(interaction.token);
  });
});
