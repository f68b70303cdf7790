import { describe, expect, it } from "vitest";
import { addPseudoLocale, bypasses, PSEUDO } from "../core/i18n/pseudo.js";
import type { FakeSlack } from "../fakes/slack/index.js";
import { headerOf, type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/**
 * Each person is answered in the language they read Slack in (users.info with `include_locale`),
 * whatever the language of the others in the same workspace.
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

describe("a refusal in the person's language", () => {
  it("tells a Japanese user in Japanese and an English user of the same workspace in English", async () => {
    const yuki = fake.addUser("yuki");
    yuki.locale = "ja-JP";
    refuseKey();
    const japanese = await world.answer("image generate a fox", yuki.id);
    expect(japanese).toContain("API キーが受け付けられませんでした");
    expect(japanese).toContain("管理者が setup コマンドで設定できます。");
    expect(japanese).not.toContain("API key not accepted");
    // Asked once with the person's admin flag, and only where it was asked for.
    const asked = fake.calls.filter((c) => c.method === "users.info" && c.args.user === yuki.id);
    expect(asked.filter((c) => String(c.args.include_locale) === "true")).toHaveLength(1);

    refuseKey();
    const english = await world.answer("image generate a fox");
    expect(english).toContain("API key not accepted");
    expect(english).not.toContain("API キー");
  });
});

describe("a language chosen on the Home", () => {
  it("answers a person who picked Français on their Home in French though their Slack is English", async () => {
    const paul = fake.addUser("paul");
    await fake.openHome(world.eventsUrl, paul.id);
    const select = await world.until(() =>
      (fake.home(paul.id)?.blocks ?? [])
        .map((b) => (b as { accessory?: { action_id: string; options?: { value: string }[] } }).accessory)
        .find((a) => a?.action_id === "media:my_language:mine"),
    );
    // Each language is offered in its own words.
    expect(JSON.stringify(select.options)).toContain("Français");
    expect(JSON.stringify(select.options)).toContain("日本語");
    await fake.homeAction(world.eventsUrl, { user: paul.id, actionId: select.action_id, value: "fr" });
    await world.until(() =>
      JSON.stringify(fake.home(paul.id)?.blocks ?? []).includes("Le bot vous parle désormais en Français."),
    );
    refuseKey();
    const french = await world.answer("image generate a fox", paul.id);
    expect(french).toContain("Clé API refusée");
    expect(french).not.toContain("API key not accepted");
  });
});

describe("the workspace's language", () => {
  it("answers in the language an admin set with /media setup language those whose Slack gives no language the bot speaks", async () => {
    const { admin } = fake.users;
    // Setup always opens its form on Slack (the API key is never typed in a channel).
    const setLanguage = async (language: string) => {
      const before = world.ephemeralTexts(admin.id).length;
      const form = await world.openForm("setup", admin.id);
      // Each language is offered in its own words.
      expect(JSON.stringify(form)).toContain('"text":"Português (Brasil)"');
      await world.submit(form, { language });
      return world.until(() =>
        world
          .ephemeralTexts(admin.id)
          .slice(before)
          .find((t) => t.includes("Settings saved")),
      );
    };
    expect(await setLanguage("de")).toContain("Deutsch");
    const nolocale = fake.addUser("noor");
    delete nolocale.locale;
    const korean = fake.addUser("min");
    korean.locale = "ko-KR";
    for (const person of [nolocale, korean]) {
      refuseKey();
      const german = await world.answer("image generate a fox", person.id);
      expect(german).toContain("API-Schlüssel nicht akzeptiert");
    }
    // A person whose Slack is in a language the bot speaks keeps theirs.
    refuseKey();
    expect(await world.answer("image generate a fox")).toContain("API key not accepted");

    // A person's own choice comes before everything: French for this one, whatever Slack says.
    await world.answer("settings --language fr", korean.id);
    refuseKey();
    expect(await world.answer("image generate a fox", korean.id)).toContain("Clé API refusée");
    await setLanguage("automatic");
    refuseKey();
    expect(await world.answer("image generate a fox", nolocale.id)).toContain("API key not accepted");
  });
});

/** The job message whose footer says, in Japanese, which job it is. */
const japaneseJob = (prompt: string) =>
  world.until(() =>
    world
      .channelMessages()
      .find((m) => JSON.stringify(m.blocks).includes('"text":"ジョブ ') && shown(m).includes(prompt)),
  );

describe("a whole job in the person's language", () => {
  it("shows a Japanese user's job in Japanese from the queue to its result, and a failed one", async () => {
    const hana = fake.addUser("hana");
    hana.locale = "ja-JP";
    world.emu.planNextJob("image", { durationMs: 1500 });
    await world.command("image generate a fox in the snow", hana.id);
    const running = await japaneseJob("a fox in the snow");
    const done = await world.shows(running.ts, (m) => headerOf(m)?.startsWith("✅") ?? false);
    expect(shown(done)).toMatch(/ジョブ [\w-]+/);
    // On the way, each state in Japanese, as the job's message was posted and updated.
    const edits = JSON.stringify(
      fake.calls
        .filter((c) => c.method === "chat.update" || c.method === "chat.postMessage")
        .map((c) => c.args),
    );
    expect(edits).toContain("待機中");
    expect(edits).toContain("処理中");
    expect(shown(done)).toContain("画像をダウンロード");
    expect(shown(done)).not.toMatch(/Download the image|"Job /);
    const notice = await world.until(() =>
      world
        .channelMessages()
        .find((m) => m.text.includes(`<@${hana.id}>`) && m.text.includes("の準備ができました")),
    );
    expect(notice.text).toContain("の準備ができました。");

    world.emu.planNextJob("image", { fail: "unsafe prompt" });
    await world.command("image generate another fox", hana.id);
    const failing = await japaneseJob("another fox");
    const failed = await world.shows(failing.ts, (m) => headerOf(m)?.startsWith("❌") ?? false);
    expect(shown(failed)).toContain("メディアサービスはこのジョブを完了できませんでした: unsafe prompt。");
  });
});

/**
 * What the bot knows of a person (their language, whether they are an admin) comes from
 * users.info, kept a few minutes; Slack's `user_change` says it changed, and the next gesture
 * follows it at once rather than minutes later.
 */
describe("a person's data changed at Slack", () => {
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
});

describe("the pseudo-locale", () => {
  it("shows a refusal with no English of its own: its title and sentence come from the catalogue", async () => {
    addPseudoLocale();
    const pat = fake.addUser("pat");
    pat.locale = PSEUDO;
    refuseKey();
    const answer = await world.answer("image generate a fox", pat.id);
    const [text, blocks] = [answer.slice(0, answer.indexOf("\n")), answer.slice(answer.indexOf("\n") + 1)];
    expect(text).toContain("ÀÞÍ ķéý ñóţ àççéþţéđ");
    // What the blocks show (their text fields): none of it is English of the bot's own.
    const shownInBlocks = [...blocks.matchAll(/"text":"([^"]*)"/g)].map((m) => m[1]).join("\n");
    expect(shownInBlocks).toContain("àççéþţéđ");
    expect(bypasses(shownInBlocks, ["setup"])).toEqual([]);
  });
});
