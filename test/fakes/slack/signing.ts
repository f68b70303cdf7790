import { createHmac } from "node:crypto";

/** Slack's request signature: `v0=` HMAC-SHA256 of `v0:{timestamp}:{raw body}` with the signing secret. */
export function sign(secret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
}

/** How a request reaches the app: signed like Slack by default, or deliberately not. */
export interface Delivery {
  /** Sign with another secret (a forged request), or `null` to send no signature headers at all. */
  signingSecret?: string | null;
  /** Unix seconds; an old one makes a replayed request. */
  timestamp?: number;
  /** Slack's redelivery headers (events are retried up to 3 times). */
  retryNum?: number;
  retryReason?: string;
}

export interface AppAnswer {
  status: number;
  /** Parsed JSON when the app answered JSON, else the text ("" for a bare ack). */
  body: unknown;
}

/** POSTs a form-encoded request to a Bolt HTTP endpoint (e.g. http://127.0.0.1:PORT/slack/events). */
export function postSigned(
  url: string,
  form: Record<string, string>,
  secret: string,
  delivery: Delivery = {},
): Promise<AppAnswer> {
  return post(
    url,
    new URLSearchParams(form).toString(),
    "application/x-www-form-urlencoded",
    secret,
    delivery,
  );
}

/** POSTs an Events API callback: JSON, signed the same way. */
export function postSignedJson(
  url: string,
  body: object,
  secret: string,
  delivery: Delivery = {},
): Promise<AppAnswer> {
  return post(url, JSON.stringify(body), "application/json", secret, delivery);
}

async function post(
  url: string,
  rawBody: string,
  contentType: string,
  secret: string,
  delivery: Delivery,
): Promise<AppAnswer> {
  const timestamp = delivery.timestamp ?? Math.floor(Date.now() / 1000);
  const signingSecret = delivery.signingSecret === undefined ? secret : delivery.signingSecret;
  const headers: Record<string, string> = {
    "content-type": contentType,
    "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
    ...(signingSecret === null
      ? {}
      : {
          "x-slack-request-timestamp": String(timestamp),
          "x-slack-signature": sign(signingSecret, timestamp, rawBody),
        }),
    ...(delivery.retryNum === undefined ? {} : { "x-slack-retry-num": String(delivery.retryNum) }),
    ...(delivery.retryReason === undefined ? {} : { "x-slack-retry-reason": delivery.retryReason }),
  };
  const response = await fetch(url, { method: "POST", headers, body: rawBody });
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.includes("application/json") && text !== "";
  return { status: response.status, body: isJson ? JSON.parse(text) : text };
}
