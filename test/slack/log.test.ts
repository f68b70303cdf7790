import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { boltLogger } from "../../src/slack/log.js";

describe("Bolt's and the WebClient's logging through the bot's logger", () => {
  it("builds nothing for a line below the level: no payload is read or scrubbed", () => {
    const lines: string[] = [];
    const logger = boltLogger(pino({ level: "info" }, { write: (line: string) => void lines.push(line) }));
    let read = 0;
    const payload = {
      toString() {
        read += 1;
        return 'http request body: {"token":"xoxb-1"}';
      },
    };

    logger.debug(payload);
    expect(read).toBe(0);
    expect(lines).toEqual([]);

    logger.info(payload);
    expect(read).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("xoxb-1");
  });
});
