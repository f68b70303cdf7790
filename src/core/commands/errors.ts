/** The core's refusals, where the catalogue's modules have always found them (they live in refusals.ts). */
export * from "../base/refusals.js";
