const DISCORD_EPOCH = 1_420_070_400_000n;

/**
 * Real-looking snowflakes (17-19 digits): discord.js picks rate-limit buckets with /\d{17,19}/ and
 * reads creation times from ids, so counters like "1" would change its behaviour.
 */
export function createIds(now: () => number) {
  let increment = 0n;
  let tokens = 0;
  return {
    snowflake(): string {
      increment = (increment + 1n) & 0xfffn;
      return (((BigInt(Math.floor(now())) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment).toString();
    },
    interactionToken(interactionId: string): string {
      tokens += 1;
      return `aW50ZXJhY3Rpb24${Buffer.from(`:${interactionId}:${tokens}`).toString("base64url")}`;
    },
  };
}

export type Ids = ReturnType<typeof createIds>;

export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}
