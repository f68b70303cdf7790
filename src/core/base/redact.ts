/**
 * Redaction by value: whatever a log line says, secrets inside strings (an error's URL, a stack,
 * a library's debug line) are replaced before the line is written. Key-based redaction (log.ts)
 * cannot see these: a Discord error's `url` holds an interaction token inside a path.
 *
 * The configured secrets are known only at start, and tenants' keys only when they are used,
 * so they are registered as they appear; the shapes below catch the rest.
 */

export const REDACTED = "[redacted]";

/** Shorter values would redact ordinary words; no real key or token is this short. */
const MIN_SECRET_LENGTH = 8;

const known = new Set<string>();
/**
 * All known secrets as one alternation, longest first, rebuilt when one is added: with 1,000
 * tenants' keys a whole line's redaction costs about 25 µs (`npm run bench -- redact`), where a
 * scan per secret cost 450 µs.
 */
let knownPattern: RegExp | undefined;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function remember(secret: string): void {
  if (known.has(secret)) return;
  known.add(secret);
  knownPattern = undefined;
}

/** A value never to be written anywhere: a configured key, a token, a tenant's decrypted key. */
export function addSecret(value: string | undefined): void {
  const secret = value?.trim();
  if (!secret || secret.length < MIN_SECRET_LENGTH) return;
  remember(secret);
  // Inside a JSON line a quote or backslash of the secret is escaped.
  remember(JSON.stringify(secret).slice(1, -1));
}

/** Secret-shaped parts of text: [pattern, replacement]. */
const SHAPES: [RegExp, string][] = [
  // A JSON field named for a secret, at any depth (pino's key paths stop at a fixed depth, and a
  // library's error nests its request body deep: a DiscordAPIError's requestBody.json.token).
  [
    /"((?:[\w-]*_)?(?:token|apiKey|api_key|x-api-key|authorization|botToken|appToken|accessToken|refreshToken|functionToken|signingSecret|clientSecret|stateSecret|secretsKey|secret|password|response_url|responseUrl|cookie))"(\s*:\s*)"(?:[^"\\]|\\.)*"/gi,
    `"$1"$2"${REDACTED}"`,
  ],
  // Discord: /webhooks/<app>/<interaction token>, /interactions/<id>/<token>/callback.
  [/(\/(?:webhooks|interactions)\/\d+\/)[^/?#\s"'\\]+/g, `$1${REDACTED}`],
  // Slack response_url and incoming webhooks carry their credential in the path.
  [
    /(hooks\.slack(?:-gov)?\.com\/(?:commands|actions|services|triggers|workflows)\/)[^\s"'\\<>]+/g,
    `$1${REDACTED}`,
  ],
  // Slack tokens: bot, user, app-level, refresh, configuration.
  [/\bxox[a-z]-[A-Za-z0-9-]+/g, REDACTED],
  [/\bxapp-[A-Za-z0-9-]+/g, REDACTED],
  // A workflow step execution's own token (function_executed's bot_access_token).
  [/\bxwfp-[A-Za-z0-9-]+/g, REDACTED],
  // Discord bot tokens and JWTs: three base64url parts joined by dots.
  [/\b[\w-]{20,}\.[\w-]{6,}\.[\w-]{20,}\b/g, REDACTED],
  [/\bBearer\s+[\w.~+/=-]+/gi, `Bearer ${REDACTED}`],
  // A password in a URL (redis://:pw@host, https://user:pw@host).
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:"']*:)[^\s/@"']+@/gi, `$1${REDACTED}@`],
  // Signed or keyed query parameters.
  [
    /([?&](?:token|access_token|api_key|apikey|key|signature|sig|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&#\s"'\\]+/gi,
    `$1${REDACTED}`,
  ],
];

/** The text with every known secret and every secret-shaped part replaced. */
export function redactText(text: string): string {
  let out = text;
  if (known.size > 0) {
    knownPattern ??= new RegExp(
      [...known]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join("|"),
      "g",
    );
    out = out.replace(knownPattern, REDACTED);
  }
  for (const [pattern, replacement] of SHAPES) out = out.replace(pattern, replacement);
  return out;
}
