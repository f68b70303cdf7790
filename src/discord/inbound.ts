/** How interactions reach the bot: the gateway, or POST /discord/interactions (http/index.ts). */
export interface Inbound {
  /** HTTP mode: the route Discord's Interactions Endpoint URL points at. */
  url?: string;
  /** Why interactions cannot arrive right now, or undefined when they can. */
  problem(): string | undefined;
  /** Stops taking new interactions. */
  close(): void;
}
