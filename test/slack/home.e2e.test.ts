import { describe, expect, it } from "vitest";
import type { SlackView } from "../fakes/slack/index.js";
import { postSigned } from "../fakes/slack/signing.js";
import { headerOf, type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/**
 * The App Home tab in Slack: opening it publishes the person's panel (running jobs, results,
 * defaults, presets), a job of theirs that moves on publishes it again, and a default chosen in
 * it is stored for them and shown at once. `/media settings` shows the same panel privately.
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

const requester = () => world.fake.users.requester.id;
const homeOf = (user = requester()) => world.fake.home(user);
const text = (view: SlackView | undefined) => JSON.stringify(view?.blocks ?? []);
const person = (userId = requester()) => ({
  platform: "slack" as const,
  tenantId: world.fake.teamId,
  userId,
});

type Accessory = { action_id: string; initial_option?: { value: string }; placeholder?: { text: string } };
/** The select of `view` that sets `option`, by its action_id. */
function selectOf(view: SlackView | undefined, action: string, option: string): Accessory {
  const found = (view?.blocks ?? [])
    .map((b) => (b as { accessory?: Accessory }).accessory)
    .find((a) => a?.action_id === `media:${action}:${option}`);
  if (!found) throw new Error(`no select ${action} ${option} in the Home`);
  return found;
}

describe("the App Home tab", () => {
  it("is published with a running job when opened, and again when the job finishes", async () => {
    world.emu.planNextJob("image", { durationMs: 2_500 });
    const before = world.jobCount();
    await world.command("image generate a lighthouse at dusk");
    const message = await world.jobMessage(before);
    await world.shows(message.ts, (m) => headerOf(m)?.startsWith("⏳") === true);

    await world.fake.openHome(world.eventsUrl);
    const running = await world.until(() => {
      const view = homeOf();
      return text(view).includes("Running:") && text(view).includes("a lighthouse at dusk")
        ? view
        : undefined;
    });
    expect(running.type).toBe("home");
    expect(text(running)).toContain("Your defaults: shape and style");

    await world.finished(message.ts);
    const done = await world.until(() => {
      const view = homeOf();
      return text(view).includes("Nothing running right now.") ? view : undefined;
    });
    expect(text(done)).toContain("Image: a lighthouse at dusk");
    expect(text(done)).toContain("Done ·");
  });

  it("runs a result's follow-up clicked in the Home where the result is, in its channel", async () => {
    await world.fake.openHome(world.eventsUrl);
    const home = await world.until(() =>
      text(homeOf()).includes("media:regenerate:") ? homeOf() : undefined,
    );
    const regenerate = /"action_id":"(media:regenerate:[^"]+)"/.exec(text(home))![1]!;
    const generations = world.creations("/api/image/generate").length;
    const before = world.jobCount();

    await world.fake.homeAction(world.eventsUrl, { user: requester(), actionId: regenerate });
    const again = await world.finished((await world.jobMessage(before)).ts);
    expect(again.channel).toBe(world.fake.channelId);
    expect(headerOf(again)).toMatch(/^✅ Image: a lighthouse at dusk/);
    expect(world.creations("/api/image/generate")).toHaveLength(generations + 1);

    // A follow-up with a form opens it from the Home; its job, too, goes to the result's channel.
    await world.fake.openHome(world.eventsUrl);
    const latest = await world.until(() => {
      const view = homeOf();
      const id = /"action_id":"(media:edit:[^"]+)"/.exec(text(view))?.[1];
      return id && !id.includes(regenerate.split(":")[2]!) ? id : undefined;
    });
    const views = world.fake.views.length;
    await world.fake.homeAction(world.eventsUrl, { user: requester(), actionId: latest });
    const form = await world.until(() => world.fake.views[views]);
    const edits = world.creations("/api/image/edit").length;
    const next = world.jobCount();
    await world.submit(form, { prompt: "add a moon" });
    const edited = await world.finished((await world.jobMessage(next)).ts);
    expect(edited.channel).toBe(world.fake.channelId);
    expect(world.creations("/api/image/edit")).toHaveLength(edits + 1);
  });

  it("stores a default chosen in the Home and shows it there", async () => {
    await world.fake.openHome(world.eventsUrl);
    const home = await world.until(() => homeOf());
    const aspect = selectOf(home, "my_default", "aspect_ratio");
    expect(aspect.initial_option).toBeUndefined();

    await world.fake.homeAction(world.eventsUrl, {
      user: requester(),
      actionId: aspect.action_id,
      value: "16:9",
    });
    // The publish that answers the click; a refresh for a job's news may follow it (without the
    // notice), sooner or later on a loaded machine.
    const published = () =>
      world.fake.calls
        .filter((c) => c.method === "views.publish" && c.args.user_id === requester())
        .map((c) => (typeof c.args.view === "string" ? JSON.parse(c.args.view) : c.args.view) as SlackView);
    const answered = await world.until(() =>
      published().find((view) => text(view).includes("Your default aspect ratio set to 16:9.")),
    );
    expect(selectOf(answered, "my_default", "aspect_ratio").initial_option?.value).toBe("16:9");
    expect((await world.stores.preferences.get(person())).defaults).toMatchObject({ aspect_ratio: "16:9" });
    await world.until(
      () => selectOf(homeOf(), "my_default", "aspect_ratio").initial_option?.value === "16:9",
    );
  });

  it("suggests the account's avatars as someone types in a searchable select of the Home", async () => {
    const answer = await postSigned(
      world.eventsUrl,
      {
        payload: JSON.stringify({
          type: "block_suggestion",
          action_id: "media:my_default:avatar",
          block_id: "search:settings:avatar",
          value: "",
          api_app_id: world.fake.appId,
          team: { id: world.fake.teamId, domain: "fake" },
          user: { id: requester(), name: "requester", team_id: world.fake.teamId },
          container: { type: "view", view_id: homeOf()?.id ?? "V1" },
          view: { ...homeOf(), state: { values: {} } },
        }),
      },
      world.fake.signingSecret,
    );
    const options = (answer.body as { options: { value: string }[] }).options;
    const avatars = await world.client.as("test-key").avatars.list();
    expect(options.map((o) => o.value)).toEqual(avatars.slice(0, options.length).map((a) => a.id));
    expect(options.length).toBeGreaterThan(0);
  });

  it("types the negative prompt in a form opened from the Home", async () => {
    await world.fake.openHome(world.eventsUrl);
    await world.until(() => homeOf());
    const views = world.fake.views.length;
    await world.fake.homeAction(world.eventsUrl, {
      user: requester(),
      actionId: "media:negative_prompt:mine",
    });
    const form = await world.until(() => world.fake.views[views]);
    await world.submit(form, { negative_prompt: "watermarks" });
    await world.until(() => (text(homeOf()).includes("watermarks, yours") ? true : undefined));
    expect((await world.stores.preferences.get(person())).defaults).toMatchObject({
      negative_prompt: "watermarks",
    });
  });

  it("/media settings shows the panel privately, points to the Home, and sets defaults typed after it", async () => {
    const other = world.fake.users.other.id;
    const panel = await world.answer("settings", other);
    expect(panel).toContain("Your defaults: shape and style");
    expect(panel).toContain("Home tab");

    const saved = await world.answer("settings --resolution 1080p --aspect-ratio 9:16", other);
    expect(saved).toContain("Your defaults saved: aspect ratio 9:16, resolution 1080p.");
    expect((await world.stores.preferences.get(person(other))).defaults).toEqual({
      aspect_ratio: "9:16",
      resolution: "1080p",
    });

    // Checked like any option: nothing is saved.
    expect(await world.answer("settings --duration 99", other)).toContain("duration must be at most 30");
    expect((await world.stores.preferences.get(person(other))).defaults).not.toHaveProperty("duration");
  });

  it("changes a default from the private panel, which shows it in place", async () => {
    const other = world.fake.users.other.id;
    await world.answer("settings", other);
    const panel = world.fake
      .ephemerals()
      .filter((m) => m.user === other)
      .at(-1)!;
    await world.fake.blockAction(world.eventsUrl, {
      actionId: "media:my_default:style",
      message: panel.message_ts,
      value: "film_35mm_editorial",
      user: other,
    });
    // The same ephemeral message, replaced through the click's response_url.
    const replaced = await world.until(() => {
      const now = world.fake.ephemerals().find((m) => m.message_ts === panel.message_ts);
      return now && shown(now).includes("Your default style set to Film 35mm editorial.") ? now : undefined;
    });
    expect(shown(replaced)).toContain("Avatar & delivery");
    expect((await world.stores.preferences.get(person(other))).defaults).toMatchObject({
      style: "film_35mm_editorial",
    });
  });
});
