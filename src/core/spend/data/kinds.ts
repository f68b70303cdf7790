/**
 * What a job made, finer than the polling kinds (one status endpoint serves avatar and cinematic
 * videos, another mockup videos and assets): the kinds spending is reported and budgeted in.
 */
export const SPEND_KINDS = [
  "image",
  "avatar_video",
  "cinematic",
  "photo_avatar",
  "mockup",
  "mockup_video",
  "asset",
  "thumbnail",
] as const;
export type SpendKind = (typeof SPEND_KINDS)[number];

/** By the catalogue command (or follow-up form) that made it: every starting name maps to one. */
const BY_COMMAND: [RegExp, SpendKind][] = [
  [/^image\./, "image"],
  [/^video\.cinematic/, "cinematic"],
  [/^video\./, "avatar_video"],
  [/^photo_avatar\./, "photo_avatar"],
  [/^mockup\.video/, "mockup_video"],
  [/^mockup\.asset/, "asset"],
  [/^mockup\./, "mockup"],
  [/^thumbnail\./, "thumbnail"],
];

export function spendKindOf(command: string): SpendKind | undefined {
  return BY_COMMAND.find(([pattern]) => pattern.test(command))?.[1];
}
