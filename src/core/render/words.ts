import type { Platform } from "../base/ports.js";
import { spoken } from "./help.js";

/**
 * The words that differ between the platforms in the core's sentences: what the place is called
 * whose admins set defaults and whose key pays, and how a command is typed. Cards say them the
 * way the person reading uses them.
 */

export type Place = "server" | "workspace";

/** Discord's server (a guild), Slack's workspace. */
export const PLACE: Record<Platform, Place> = { discord: "server", slack: "workspace" };

/**
 * A command with options as a person types it after the slash: Discord's `settings
 * scope:server duration:8`, Slack's `settings --scope server --duration 8` (a value with spaces
 * quoted).
 */
export function typed(
  platform: Platform,
  command: string,
  options: Record<string, string | number> = {},
): string {
  const parts = Object.entries(options).map(([name, value]) => typedOption(platform, name, value));
  return [spoken(command), ...parts].join(" ");
}

/** One option as typed: `preset:Brand kit` on Discord, `--preset "Brand kit"` on Slack. */
export function typedOption(platform: Platform, name: string, value: string | number): string {
  if (platform === "discord") return `${name}:${value}`;
  const text = String(value);
  return `--${name.replaceAll("_", "-")} ${/\s/.test(text) ? `"${text}"` : text}`;
}
