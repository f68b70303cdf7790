import { expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/index.js";
import { type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * What the bot knows of a person (their language, whether they are an admin) comes from
 * users.info, kept a few minutes; Slack's `user_change` says it changed, and the next gesture
 * follows it at once rather than minutes later.
 */

let world: SlackWorld;
let fake: FakeSlack;

slackWorldPerFile((started) => {
  world = started;
  fake = started.fake;
});

const refuseKey = () =>
  world.emu.inject({
    method: "POST",
    path: "/api/image/generate",
    status: 401,
    body: { error: "Invalid API key" },
  });

it("answers a person in German from their next command once they switch Slack to German", async () => {
  const lena = fake.addUser("lena");
  lena.locale = "en-US";
  refuseKey();
  expect(await world.answer("image generate a fox", lena.id)).toContain("API key not accepted");

  const answer = await fake.changeUser(world.eventsUrl, lena.id, { locale: "de-DE" });
  expect(answer.status).toBe(200);
  refuseKey();
  const german = await world.answer("image generate a fox", lena.id);
  expect(german).toContain("API-Schlüssel");
  expect(german).not.toContain("API key not accepted");
  expect(fake.calls.filter((c) => c.method === "users.info" && c.args.user === lena.id)).toHaveLength(2);
});

it("lets a member made an admin use an admin's command at once", async () => {
  const ada = fake.addUser("ada");
  expect(await world.answer("jobs --all", ada.id)).toContain("Only admins can see everyone's jobs.");
  await fake.changeUser(world.eventsUrl, ada.id, { is_admin: true });
  expect(await world.answer("jobs --all", ada.id)).not.toContain("Only admins");
});
