import { describe, expect, it } from "vitest";
import { withMentions } from "./mentions.js";

const people = [
  { id: "U1", name: "Admin Person" },
  { id: "U2", name: "Admin" },
  { id: "U3", name: "Requester" },
];

describe("@name in a command box", () => {
  it("becomes the person's mention, the longest name first, in any case", () => {
    expect(withMentions("/media budget @Admin Person --jobs 2", people)).toBe("/media budget <@U1> --jobs 2");
    expect(withMentions("for:@admin jobs:2", people)).toBe("for:<@U2> jobs:2");
    expect(withMentions("@Requester and @Admin", people)).toBe("<@U3> and <@U2>");
  });

  it("leaves what names no one, and names inside longer words, as typed", () => {
    expect(withMentions("mail me@Admin.com or @Nobody", people)).toBe("mail me@Admin.com or @Nobody");
    expect(withMentions("@Requesters", people)).toBe("@Requesters");
  });
});
