import type { APIMessage } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { decodeControlId } from "../../src/discord/custom-id.js";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * /settings on Discord: the panel is a private message with a select per default, tabs to its
 * other sections and a form for the negative prompt; a choice is stored for the person (or, for
 * admins with scope:server, the server) and the panel shows it at once.
 */

let world: DiscordWorld;
discordWorldPerFile((started) => {
  world = started;
});

type Component = {
  type: number;
  custom_id?: string;
  label?: string;
  placeholder?: string;
  options?: { label: string; value: string; default?: boolean }[];
};
const components = (message: APIMessage) =>
  ((message.components ?? []) as unknown as { components: Component[] }[]).flatMap((r) => r.components);

/** The select that sets `option` (its custom_id names it). */
function selectOf(message: APIMessage, option: string): Component {
  const found = components(message).find(
    (c) => c.type === 3 && c.custom_id && decodeControlId(c.custom_id)?.jobId === option,
  );
  if (!found) throw new Error(`no select for ${option} on ${message.id}`);
  return found;
}

const chosen = (select: Component) => select.options?.find((o) => o.default)?.label;

function buttonId(message: APIMessage, label: string): string {
  const found = components(message).find((c) => c.type === 2 && c.label === label);
  if (!found?.custom_id) throw new Error(`no button ${label} on ${message.id}`);
  return found.custom_id;
}

/** Waits until the panel message changed from `before`. */
async function changed(message: APIMessage, before: string): Promise<APIMessage> {
  return world.until(() => {
    const now = world.fake.message(message.id);
    return now && JSON.stringify([shown(now), now.components]) !== before ? now : undefined;
  });
}

const snapshot = (message: APIMessage) => JSON.stringify([shown(message), message.components]);

const person = (userId = world.fake.users.requester.id) => ({
  platform: "discord" as const,
  tenantId: world.fake.guild.id,
  userId,
});

describe("/settings on Discord", () => {
  it("shows the panel privately; choosing 16:9 stores the default and the panel shows it", async () => {
    const panel = await world.run({ name: "settings" });
    expect(isEphemeral(panel)).toBe(true);
    expect(panel.embeds[0]?.title).toBe("Your defaults: shape and style");
    const aspect = selectOf(panel, "aspect_ratio");
    expect(aspect.placeholder).toBe("Aspect ratio: not set (the service decides)");
    expect(aspect.options?.map((o) => o.value)).toEqual(["1:1", "16:9", "9:16", "4:3", "3:4", "-"]);
    expect(chosen(aspect)).toBeUndefined();
    // Four selects (Discord's five rows keep one for buttons), then tabs and the negative prompt's form.
    expect(components(panel).filter((c) => c.type === 3)).toHaveLength(4);
    expect(
      components(panel)
        .filter((c) => c.type === 2)
        .map((c) => c.label),
    ).toEqual(["Avatar & delivery", "Presets", "Jobs & spending", "Negative prompt…"]);

    const before = snapshot(panel);
    await world.fake.selectMenu(panel, aspect.custom_id!, ["16:9"]);
    const after = await changed(panel, before);
    expect((await world.stores.preferences.get(person())).defaults).toEqual({ aspect_ratio: "16:9" });
    expect(after.id).toBe(panel.id);
    expect(chosen(selectOf(after, "aspect_ratio"))).toBe("Aspect ratio: 16:9");
    expect(shown(after)).toContain("Your default aspect ratio set to 16:9.");

    // Clear puts it back to what the server (here nobody) says.
    await world.fake.selectMenu(after, selectOf(after, "aspect_ratio").custom_id!, ["-"]);
    const cleared = await changed(after, snapshot(after));
    expect((await world.stores.preferences.get(person())).defaults).toEqual({});
    expect(chosen(selectOf(cleared, "aspect_ratio"))).toBeUndefined();
  });

  it("makes the next command with a default chosen in the panel, and its result says so", async () => {
    const user = world.fake.addUser("panel-user");
    const panel = await world.run({ name: "settings", user });
    await world.fake.selectMenu(panel, selectOf(panel, "aspect_ratio").custom_id!, ["9:16"], user);
    await changed(panel, snapshot(panel));
    const before = world.creations("/api/image/generate").length;

    const job = await world.jobMessage(
      await world.command({
        name: "image",
        subcommand: "generate",
        options: { prompt: "a tall tower" },
        user,
      }),
    );
    expect(
      world
        .creations("/api/image/generate")
        .slice(before)
        .map((c) => c.json),
    ).toEqual([{ prompt: "a tall tower", name: "a tall tower", aspectRatio: "9:16" }]);
    expect(job.embeds[0]?.fields?.find((f) => f.name === "Aspect ratio")?.value).toBe("9:16 (your default)");
  });

  it("sets defaults from the command line and shows the section they are in", async () => {
    const saved = await world.run({
      name: "settings",
      user: world.fake.users.other,
      options: { delivery: "private", full_body: true },
    });
    expect(saved.embeds[0]?.title).toBe("Your defaults: avatar and delivery");
    expect(shown(saved)).toContain("Your defaults saved: full body yes, delivery private.");
    expect((await world.stores.preferences.get(person(world.fake.users.other.id))).defaults).toEqual({
      delivery: "private",
      full_body: true,
    });
    expect(chosen(selectOf(saved, "delivery"))).toBe("Delivery: Private: only you");
  });

  it("lets only admins set the server's defaults, which members then see as the server's", async () => {
    const refused = await world.run({
      name: "settings",
      user: world.fake.users.other,
      options: { scope: "server", resolution: "720p" },
    });
    expect(shown(refused)).toContain("Only admins can set the server's defaults");

    const saved = await world.run({
      name: "settings",
      user: world.fake.users.admin,
      options: { scope: "server", resolution: "720p" },
    });
    expect(saved.embeds[0]?.title).toBe("The server's defaults");
    expect((await world.stores.tenants.get(person())).defaults).toMatchObject({ resolution: "720p" });

    const member = await world.run({ name: "settings", user: world.fake.users.other });
    expect(selectOf(member, "resolution").placeholder).toBe("Resolution: 720p, the server's");

    // In the admin's panel, the server's section has selects of its own.
    const server = selectOf(saved, "resolution");
    expect(decodeControlId(server.custom_id!)?.action).toBe("server_default");
    expect(chosen(server)).toBe("Resolution: 720p");
    await world.fake.selectMenu(saved, server.custom_id!, ["1080p"], world.fake.users.admin);
    const after = await changed(saved, snapshot(saved));
    expect(shown(after)).toContain("The server's default resolution set to 1080p.");
    expect((await world.stores.tenants.get(person())).defaults).toMatchObject({ resolution: "1080p" });
  });

  it("types the negative prompt in a form opened from the panel, and moves between sections", async () => {
    const panel = await world.run({ name: "settings" });
    const id = buttonId(panel, "Negative prompt…");
    const click = await world.fake.clickButton(panel, id);
    const first = await world.firstResponse(click);
    expect(first.type).toBe(9); // a modal
    const before = snapshot(panel);
    await world.fake.submitModal(id, { negative_prompt: "blur, text" });
    const after = await changed(panel, before);
    expect((await world.stores.preferences.get(person())).defaults).toMatchObject({
      negative_prompt: "blur, text",
    });
    expect(shown(after)).toContain("blur, text, yours");

    await world.fake.clickButton(after, buttonId(after, "Jobs & spending"));
    const jobs = await changed(after, snapshot(after));
    expect(jobs.embeds[0]?.title).toBe("Your jobs");
  });
});
