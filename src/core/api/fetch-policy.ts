import { lookup as lookupCallback } from "node:dns";
import { lookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { bounded } from "../base/bounded.js";
import { BotError } from "../base/errors.js";
import { msg } from "../i18n/msg.js";

/**
 * What the bot agrees to fetch when the service names a URL (a downloadUrl, a mockup's imageUrl,
 * a variant preview). A spoofed or compromised service must not make the bot read its own
 * network (a cloud metadata endpoint, an admin port) and post the answer in chat.
 */

export class RefusedFetchError extends BotError {
  readonly code = "result.refused";
}

/**
 * Loopback, private (RFC 1918, unique local), link-local, carrier-grade NAT, benchmarking and
 * "this network"; each IPv4 one also as NAT64 writes it (64:ff9b::169.254.169.254 is the metadata
 * endpoint where a NAT64 gateway runs).
 */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
] as const) {
  INTERNAL.addSubnet(net, prefix, "ipv4");
  const [a, b, c, d] = net.split(".").map(Number) as [number, number, number, number];
  const pair = (high: number, low: number) => ((high << 8) | low).toString(16);
  INTERNAL.addSubnet(`64:ff9b::${pair(a, b)}:${pair(c, d)}`, 96 + prefix, "ipv6");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
] as const) {
  INTERNAL.addSubnet(net, prefix, "ipv6");
}

export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return INTERNAL.check(mapped, "ipv4");
  const family = isIP(address);
  return family !== 0 && INTERNAL.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** "[::1]" -> "::1": URL keeps the brackets of an IPv6 host. */
function bare(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * Refuses a URL that is not http(s), or whose host is or resolves to an internal address, unless
 * it is `trustedHost` (the service's own host, which may well be internal: a sidecar, the tests'
 * emulator on 127.0.0.1; none for an address nobody vouches for). A name that does not resolve is
 * left to the request to report.
 */
export async function checkFetchTarget(url: URL, trustedHost: string | undefined): Promise<void> {
  const refuse = (why: string) =>
    new RefusedFetchError(msg("refusal.result.not_allowed"), {
      message: `refused to fetch ${url.protocol}//${url.host}${url.pathname}: ${why}`,
    });
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refuse("not http(s)");
  const host = bare(url.hostname);
  if (trustedHost !== undefined && host === bare(trustedHost)) return;
  if (isIP(host)) {
    if (isInternalAddress(host)) throw refuse("an internal address");
    return;
  }
  const addresses = await lookup(host, { all: true }).catch(() => []);
  const internal = addresses.find((a) => isInternalAddress(a.address));
  if (internal) throw refuse(`resolves to the internal address ${internal.address}`);
}

/**
 * The same rule when the connection is made, for the name the socket really resolves: a name
 * that resolved to a public address for checkFetchTarget and to an internal one a moment later
 * (DNS rebinding) is refused here.
 */
export function guardedLookup(trustedHost: string): LookupFunction {
  const trusted = bare(trustedHost);
  return (hostname, options, callback) => {
    lookupCallback(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const internal = addresses.find((a) => isInternalAddress(a.address));
      if (internal && bare(hostname) !== trusted) {
        const refused = Object.assign(
          new Error(`${hostname} resolves to the internal address ${internal.address}`),
          {
            code: "ERR_INTERNAL_ADDRESS",
          },
        );
        return callback(refused, "", 0);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      return callback(null, first?.address ?? "", first?.family ?? 0);
    });
  };
}

/**
 * What a result file may be, by kind. A file over its cap (or over the platform's upload limit,
 * whichever is lower) is shown as its link and not fetched.
 */
export const RESULT_FILES = {
  image: { types: /^image\//i, label: "an image", maxBytes: 50 * 1024 * 1024 },
  video: { types: /^video\/mp4$/i, label: "an MP4 video", maxBytes: 1024 * 1024 * 1024 },
} as const;

/** Refuses a result whose type is not what the job makes (a JSON document, an HTML page). */
export function checkResultType(kind: keyof typeof RESULT_FILES, contentType: string): void {
  const expected = RESULT_FILES[kind];
  const type = contentType.split(";")[0]!.trim();
  if (expected.types.test(type)) return;
  throw new RefusedFetchError(msg("refusal.result.wrong_type", { kind }), {
    message: `result of type "${type}" where ${expected.label} was due`,
  });
}

/** A result's bytes, stopped past `max` (its declared size, or the cap when it declared none). */
export function resultStream(body: Readable, max: number): Readable {
  return bounded(
    body,
    max,
    () =>
      new RefusedFetchError(msg("refusal.result.too_large"), {
        message: `result body over ${max} bytes`,
      }),
  );
}
