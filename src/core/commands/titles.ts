import { type Msg, msg } from "../i18n/msg.js";

/**
 * A job's title, "Image: a fox in the snow": its kind in its requester's language, then its name
 * or prompt as they typed it. `label`: how a kind with no words of its own reads (its command's
 * family, "Photo avatar"); `type`: the asset type a mockup names as typed ("poster").
 */
export function jobKind(kind: string, label = kind, type = ""): Msg {
  return msg("job.kind", { kind, label, type });
}

export function jobTitle(kind: string, name: string, type = ""): Msg {
  return msg("job.title", { kind: jobKind(kind, kind, type), name });
}
