import { randomBytes } from "node:crypto";

let counter = 0;

/**
 * Ids shaped like the service's own (cuid: "c", time, counter, randomness; 25 lowercase
 * characters such as cm2yaz9j10008l0qg9npyjgs3), so clients that validate id shapes are exercised.
 */
export function newId(): string {
  counter = (counter + 1) % 36 ** 4;
  const time = Date.now().toString(36).slice(-8).padStart(8, "0");
  const count = counter.toString(36).padStart(4, "0");
  const random = [...randomBytes(12)].map((b) => (b % 36).toString(36)).join("");
  return `c${time}${count}${random}`;
}
