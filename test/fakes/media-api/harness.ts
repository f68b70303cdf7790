import { afterAll, beforeAll, beforeEach } from "vitest";
import { type Emulator, type EmulatorOptions, startEmulator } from "./index.js";

/** A clock the tests move by hand, so state machines are walked without waiting. */
export class ManualClock {
  t = Date.UTC(2025, 0, 15, 12, 0, 0);
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field in the tests
  body: any;
}

export interface Client {
  readonly em: Emulator;
  readonly clock: ManualClock;
  /** A JSON (or multipart, when `form` is given) request with x-api-key `key` (default test-key). */
  call(
    method: string,
    path: string,
    opts?: { key?: string | null; json?: unknown; form?: FormData; headers?: Record<string, string> },
  ): Promise<Answer>;
  /** Upload flow in one go: initialize, PUT, finalize. */
  upload(contentType: string, bytes?: Uint8Array, key?: string): Promise<string>;
}

/** Starts one emulator for the file (manual clock unless `now` is given) and resets it before each test. */
export function useEmulator(opts: EmulatorOptions = {}): Client {
  const clock = new ManualClock();
  let em: Emulator | undefined;
  beforeAll(async () => {
    em = await startEmulator({ now: clock.now, ...opts });
  });
  afterAll(async () => {
    await em?.close();
  });
  beforeEach(() => {
    em?.reset();
  });

  const client: Client = {
    get em() {
      if (!em) throw new Error("emulator not started");
      return em;
    },
    clock,
    async call(method, path, { key = "test-key", json, form, headers = {} } = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      const h = init.headers as Record<string, string>;
      if (key !== null) h["x-api-key"] = key;
      if (json !== undefined) {
        h["content-type"] = "application/json";
        init.body = JSON.stringify(json);
      } else if (form) {
        init.body = form;
      }
      const res = await fetch(`${client.em.url}${path}`, init);
      const text = await res.text();
      const type = res.headers.get("content-type") ?? "";
      return {
        status: res.status,
        headers: res.headers,
        body: type.includes("json") && text ? JSON.parse(text) : text,
      };
    },
    async upload(contentType, bytes = new Uint8Array(16).fill(7), key = "test-key") {
      const init = await client.call("POST", "/api/media/initialize", {
        key,
        json: { fileName: "file.bin", contentType, fileSize: bytes.length },
      });
      const put = await fetch(init.body.uploadUrl, {
        method: "PUT",
        headers: { "content-type": contentType },
        body: bytes,
      });
      if (put.status !== 200) throw new Error(`PUT answered ${put.status}`);
      await client.call("POST", "/api/media/finalize", { key, json: { mediaId: init.body.mediaId } });
      return init.body.mediaId;
    },
  };
  return client;
}

/** A multipart form from plain fields and files. */
export function formOf(
  fields: Record<string, string>,
  files: { field: string; name: string; type: string; size?: number }[] = [],
) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  for (const file of files)
    form.append(file.field, new Blob([new Uint8Array(file.size ?? 32)], { type: file.type }), file.name);
  return form;
}
