import { expect, it } from "vitest";
import { newJobId, type QueueLimits, type QueueStore, type Stores } from "../../src/store/index.js";
import { describeEachBackend } from "./backends.js";

/**
 * The queue's steps on sqlite and Redis alike: who starts at once, who waits and in which order,
 * who is next when a place frees, and a cancel against a start, each decided atomically so that
 * replicas (connections of their own) decide as one.
 */

const tenant = { platform: "slack" as const, tenantId: "T1" };
const limits: QueueLimits = { person: 2, queue: 3, tenant: 0 };
const OWNER = "instance-a";

function ask(queue: QueueStore, userId: string, at = Date.now(), set = limits, owner = OWNER) {
  const id = newJobId();
  return queue
    .enqueue({ id, tenant, userId, at, payload: JSON.stringify({ userId }), owner }, set)
    .then((outcome) => ({ id, outcome }));
}

/** Everything that can start now, as a dispatcher would pick it. */
async function pickAll(queue: QueueStore, set = limits, owner = OWNER): Promise<string[]> {
  const picked: string[] = [];
  for (let e = await queue.pick(tenant, set, owner); e; e = await queue.pick(tenant, set, owner)) {
    picked.push(e.id);
  }
  return picked;
}

/** Posts "messages" for the queued ones: they wait from then on. */
async function readyAll(queue: QueueStore, asked: { id: string }[]): Promise<void> {
  for (const { id } of asked) await queue.ready(id, JSON.stringify({ messageId: id }));
}

describeEachBackend("the queue", (backend) => {
  let stores: Stores;
  const open = async () => {
    stores = await backend.open();
    return stores.queue;
  };

  it("starts up to the running limit at once, queues the next in order, refuses past the queue's length", async () => {
    const queue = await open();
    const asked = [];
    for (let i = 0; i < 6; i++) asked.push(await ask(queue, "U1", 1000 + i));
    expect(asked.map((a) => a.outcome)).toEqual([
      { outcome: "start" },
      { outcome: "start" },
      { outcome: "queued", ahead: 0 },
      { outcome: "queued", ahead: 1 },
      { outcome: "queued", ahead: 2 },
      { outcome: "full" },
    ]);
    await readyAll(queue, asked.slice(2, 5));
    expect((await queue.queuedOf(tenant, "U1")).map((e) => e.id)).toEqual(asked.slice(2, 5).map((a) => a.id));
    // No place is free: nothing starts.
    expect(await pickAll(queue)).toEqual([]);
    // One job ends: the first queued one starts, and only it.
    await queue.release(tenant, [asked[0]!.id]);
    expect(await pickAll(queue)).toEqual([asked[2]!.id]);
    expect((await queue.get(asked[2]!.id))?.state).toBe("starting");
    expect((await queue.slots(tenant)).map((s) => s.id).sort()).toEqual([asked[1]!.id, asked[2]!.id].sort());
  });

  it("serves the person with the fewest jobs running first, then takes turns", async () => {
    const queue = await open();
    const one = { ...limits, person: 3, queue: 10, tenant: 2 };
    // Ann fills the tenant's two places and queues four more; then Bob asks twice.
    const ann = [];
    for (let i = 0; i < 6; i++) ann.push(await ask(queue, "ann", 1000 + i, one));
    const bob = [await ask(queue, "bob", 2000, one), await ask(queue, "bob", 2001, one)];
    await readyAll(queue, [...ann.slice(2), ...bob]);
    const order: string[] = [];
    const running = ann.slice(0, 2).map((a) => a.id);
    // Each time a place frees, the next start goes to whoever runs fewer, Bob's first before Ann's third.
    while (running.length > 0) {
      await queue.release(tenant, [running.shift()!]);
      for (const id of await pickAll(queue, one)) {
        order.push(id);
        running.push(id);
      }
    }
    const who = (id: string) => (bob.some((b) => b.id === id) ? "bob" : "ann");
    expect(order.map(who)).toEqual(["bob", "ann", "bob", "ann", "ann", "ann"]);
    // Each person's jobs in the order asked.
    expect(order.filter((id) => who(id) === "ann")).toEqual(ann.slice(2).map((a) => a.id));
  });

  it("a cancel and a start of the same entry: exactly one wins, and a double cancel cancels once", async () => {
    const queue = await open();
    const asked = [await ask(queue, "U1"), await ask(queue, "U1"), await ask(queue, "U1")];
    await readyAll(queue, asked.slice(2));
    const [, , queued] = asked;
    await queue.release(tenant, [asked[0]!.id]);
    expect((await queue.pick(tenant, limits, OWNER))?.id).toBe(queued!.id);
    // Cancel and calling race: whichever lands first decides.
    const [cancel, calling] = await Promise.all([
      queue.cancel(queued!.id, Date.now()),
      queue.calling(queued!.id, OWNER),
    ]);
    expect([cancel === "cancelled", calling].filter(Boolean)).toHaveLength(1);
    if (cancel === "cancelled") expect((await queue.slots(tenant)).map((s) => s.id)).toEqual([asked[1]!.id]);
    else expect(cancel).toBe("started");
    // Once cancelled, a second click finds it so.
    const fourth = await ask(queue, "U1");
    await readyAll(queue, [fourth]);
    expect(
      await Promise.all([queue.cancel(fourth.id, Date.now()), queue.cancel(fourth.id, Date.now())]),
    ).toEqual(expect.arrayContaining(["cancelled", "already"]));
    expect((await queue.get(fourth.id))?.state).toBe("cancelled");
    expect(await queue.cancel(newJobId(), 3)).toBe("unknown");
  });

  it("a start given back by a dead instance waits again at its place, before those asked after it", async () => {
    const queue = await open();
    const asked = [];
    for (let i = 0; i < 5; i++) asked.push(await ask(queue, "U1", 1000 + i));
    await readyAll(queue, asked.slice(2));
    await queue.release(tenant, [asked[0]!.id]);
    // Answered whole, as it now stands: the dispatcher starts it without reading it again.
    const entry = await queue.pick(tenant, limits, "dead");
    expect(entry).toMatchObject({
      id: asked[2]!.id,
      userId: "U1",
      state: "starting",
      owner: "dead",
      payload: JSON.stringify({ userId: "U1" }),
    });
    const picked = entry?.id;
    expect((await queue.ownedBy("dead")).map((e) => e.id)).toEqual([picked]);
    expect(await queue.requeue(picked!, "dead")).toBe(true);
    expect((await queue.queuedOf(tenant, "U1")).map((e) => e.id)).toEqual(asked.slice(2).map((a) => a.id));
    expect(await pickAll(queue)).toEqual([asked[2]!.id]);
  });

  it("a refused start ends with its reason and frees its place for the next", async () => {
    const queue = await open();
    const asked = [];
    for (let i = 0; i < 4; i++) asked.push(await ask(queue, "U1", 1000 + i));
    await readyAll(queue, asked.slice(2));
    await queue.release(tenant, [asked[0]!.id]);
    const [first] = await pickAll(queue);
    const at = Date.now();
    expect(await queue.end(first!, "refused", "over budget", at)).toBe(true);
    expect(await queue.get(first!)).toMatchObject({ state: "refused", reason: "over budget", endedAt: at });
    expect(await pickAll(queue)).toEqual([asked[3]!.id]);
    // The job of a start that went through takes the entry's place; its slot stays.
    expect(await queue.calling(asked[3]!.id, OWNER)).toBe(true);
    await queue.started(asked[3]!.id);
    expect(await queue.get(asked[3]!.id)).toBeUndefined();
    expect((await queue.slots(tenant)).map((s) => s.id)).toContain(asked[3]!.id);
    expect((await queue.recentOf(tenant, "U1", 10)).map((e) => e.id)).toContain(first);
  });

  it("replicas asking at once never start more than the limits allow, nor lose one", async () => {
    const a = await open();
    const b = (await backend.open()).queue;
    const wide = { person: 3, queue: 10, tenant: 5 };
    const asked = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        ask(i % 2 ? a : b, `U${i % 4}`, 1000 + i, wide, i % 2 ? "a" : "b"),
      ),
    );
    const started = asked.filter((x) => x.outcome.outcome === "start");
    const queued = asked.filter((x) => x.outcome.outcome === "queued");
    expect(started.length).toBeLessThanOrEqual(5);
    expect(started.length + queued.length).toBe(40);
    await readyAll(a, queued);
    const picked = [...(await pickAll(a, wide, "a")), ...(await pickAll(b, wide, "b"))];
    expect(started.length + picked.length).toBe(5);
    expect((await a.slots(tenant)).length).toBe(5);
    expect(await a.tenants()).toEqual([tenant]);
  });
});
