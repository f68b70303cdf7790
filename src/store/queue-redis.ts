import type { RedisClientType } from "@keyv/redis";
import { tenantKey } from "../common/types.js";
import {
  cancelAnswer,
  parseEntries,
  type QueueEntry,
  type QueueOptions,
  type QueueStore,
  tenantCap,
  tenantOfKey,
} from "./queue-entries.js";
import { scriptRunner } from "./spend-books.js";

/**
 * The queue on Redis: an entry is a hash; each person's queue a sorted set by the tenant's order
 * of asking; the tenant's people waiting, slots (job id to person), running counts and turns are
 * hashes and sets of the tenant. Every deciding step is one script, which Redis runs whole, so
 * every replica on the store decides as one. Like the spending books, the scripts reach the keys
 * of the tenant and people they name, which a single Redis (what STORE_URL takes) allows.
 */

const LUA_COMMON = `
local P = 'queue::'
local function entry(id) return P .. 'e:' .. id end
local function queueOf(tk, user) return P .. 'q:' .. tk .. ':' .. user end
local function running(tk, user) return tonumber(redis.call('HGET', P .. 'c:' .. tk, user) or '0') end
local function isWaiting(id) return redis.call('HGET', entry(id), 'state') == 'waiting' end
local function head(tk, user)
  local found = redis.call('ZRANGE', queueOf(tk, user), 0, 0, 'WITHSCORES')
  if found[1] and isWaiting(found[1]) then return found[1], tonumber(found[2]) end
  return nil
end
local function disown(id)
  local owner = redis.call('HGET', entry(id), 'owner')
  if owner and owner ~= '' then redis.call('SREM', P .. 'o:' .. owner, id) end
end
local function take(tk, user, id, owner)
  redis.call('HSET', P .. 's:' .. tk, id, user)
  redis.call('HINCRBY', P .. 'c:' .. tk, user, 1)
  redis.call('HSET', P .. 't:' .. tk, user, redis.call('INCR', P .. 'tick:' .. tk))
  redis.call('HSET', entry(id), 'state', 'starting', 'owner', owner)
  redis.call('SADD', P .. 'o:' .. owner, id)
end
local function giveBack(tk, id)
  local user = redis.call('HGET', P .. 's:' .. tk, id)
  if user then
    redis.call('HDEL', P .. 's:' .. tk, id)
    if redis.call('HINCRBY', P .. 'c:' .. tk, user, -1) <= 0 then redis.call('HDEL', P .. 'c:' .. tk, user) end
  end
end
local function enqueued(tk, user, id, seq)
  redis.call('ZADD', queueOf(tk, user), seq, id)
  redis.call('ZADD', P .. 'w:' .. tk, 0, user)
  redis.call('SADD', P .. 'tenants', tk)
end
local function unqueue(tk, user, id)
  local q = queueOf(tk, user)
  redis.call('ZREM', q, id)
  if redis.call('ZCARD', q) == 0 then
    redis.call('ZREM', P .. 'w:' .. tk, user)
    if redis.call('ZCARD', P .. 'w:' .. tk) == 0 then redis.call('SREM', P .. 'tenants', tk) end
  end
end
local function ended(id, state, at, keep)
  disown(id)
  redis.call('HSET', entry(id), 'state', state, 'endedAt', at, 'owner', '')
  redis.call('PEXPIRE', entry(id), keep)
end
local function pick(tk, owner, person, cap)
  if redis.call('HLEN', P .. 's:' .. tk) >= cap then return false end
  local best, bestUser, bestRunning, bestTurn, bestSeq
  for _, user in ipairs(redis.call('ZRANGE', P .. 'w:' .. tk, 0, -1)) do
    local r = running(tk, user)
    if r < person then
      local id, seq = head(tk, user)
      if id then
        local turn = tonumber(redis.call('HGET', P .. 't:' .. tk, user) or '0')
        if not best or r < bestRunning or (r == bestRunning and (turn < bestTurn or (turn == bestTurn and seq < bestSeq))) then
          best, bestUser, bestRunning, bestTurn, bestSeq = id, user, r, turn, seq
        end
      end
    end
  end
  if not best then return false end
  unqueue(tk, bestUser, best)
  take(tk, bestUser, best, owner)
  return best
end
`;

/**
 * ARGV: id, tenant, person, at, owner, payload, running limit, queue limit, tenant cap, kept per
 * person, kept per tenant. At once only when no one else's turn comes first (nobody with as few
 * jobs running waits). Answers {"start"}, {"queued", ahead}, or false when the queue is full.
 */
const ENQUEUE = `${LUA_COMMON}
local id, tk, user, at, owner, payload = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local person, limit, cap = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local queued = redis.call('ZCARD', queueOf(tk, user))
local mine = running(tk, user)
local state = nil
if queued == 0 and mine < person and redis.call('HLEN', P .. 's:' .. tk) < cap then
  state = 'starting'
  for _, other in ipairs(redis.call('ZRANGE', P .. 'w:' .. tk, 0, -1)) do
    local r = running(tk, other)
    if r < person and r <= mine and head(tk, other) then state = nil break end
  end
end
if not state and queued < limit then state = 'preparing' end
if not state then return false end
local seq = redis.call('INCR', P .. 'seq:' .. tk)
redis.call('HSET', entry(id), 'id', id, 'tenant', tk, 'userId', user, 'seq', seq, 'at', at, 'state', state,
  'owner', owner, 'payload', payload)
redis.call('SADD', P .. 'o:' .. owner, id)
for _, list in ipairs({{P .. 'h:' .. tk .. ':' .. user, ARGV[10]}, {P .. 'h:' .. tk, ARGV[11]}}) do
  redis.call('ZADD', list[1], at, id)
  redis.call('ZREMRANGEBYRANK', list[1], 0, -tonumber(list[2]) - 1)
end
if state == 'starting' then
  take(tk, user, id, owner)
  return {'start'}
end
enqueued(tk, user, id, seq)
return {'queued', queued}
`;

/** ARGV: id, message ('' none). */
const READY = `${LUA_COMMON}
local id = ARGV[1]
if redis.call('HGET', entry(id), 'state') ~= 'preparing' then return 0 end
disown(id)
redis.call('HSET', entry(id), 'state', 'waiting', 'owner', '', 'message', ARGV[2])
return 1
`;

/** ARGV: tenant, owner, running limit, tenant cap. Answers the entry picked (its hash's fields and values), or false. */
const PICK = `${LUA_COMMON}
local id = pick(ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]))
if not id then return false end
return redis.call('HGETALL', entry(id))
`;

/** ARGV: id, owner. */
const CALLING = `${LUA_COMMON}
local e = entry(ARGV[1])
if redis.call('HGET', e, 'state') ~= 'starting' or redis.call('HGET', e, 'owner') ~= ARGV[2] then return 0 end
redis.call('HSET', e, 'state', 'calling')
return 1
`;

/** ARGV: id. The job's record takes over; its slot stays. */
const STARTED = `${LUA_COMMON}
disown(ARGV[1])
redis.call('DEL', entry(ARGV[1]))
return 1
`;

/** ARGV: id, state, reason, at, keep ms. */
const END = `${LUA_COMMON}
local id = ARGV[1]
local state = redis.call('HGET', entry(id), 'state')
if state ~= 'starting' and state ~= 'calling' then return 0 end
giveBack(redis.call('HGET', entry(id), 'tenant'), id)
redis.call('HSET', entry(id), 'reason', ARGV[3])
ended(id, ARGV[2], ARGV[4], ARGV[5])
return 1
`;

/** ARGV: id, owner. */
const REQUEUE = `${LUA_COMMON}
local id = ARGV[1]
local e = entry(id)
local state = redis.call('HGET', e, 'state')
if (state ~= 'preparing' and state ~= 'starting') or redis.call('HGET', e, 'owner') ~= ARGV[2] then return 0 end
local tk, user = redis.call('HGET', e, 'tenant'), redis.call('HGET', e, 'userId')
giveBack(tk, id)
disown(id)
enqueued(tk, user, id, tonumber(redis.call('HGET', e, 'seq')))
redis.call('HSET', e, 'state', 'waiting', 'owner', '')
return 1
`;

/** ARGV: id, at, keep ms. Answers 1 when it cancelled, else the state found ('' for none). */
const CANCEL = `${LUA_COMMON}
local id = ARGV[1]
local e = entry(id)
local state = redis.call('HGET', e, 'state')
if state == 'preparing' or state == 'waiting' then
  unqueue(redis.call('HGET', e, 'tenant'), redis.call('HGET', e, 'userId'), id)
elseif state == 'starting' then
  giveBack(redis.call('HGET', e, 'tenant'), id)
else
  return state or ''
end
ended(id, 'cancelled', ARGV[2], ARGV[3])
return 1
`;

/** ARGV: tenant, then the ids whose slots are given back. */
const RELEASE = `${LUA_COMMON}
for i = 2, #ARGV do giveBack(ARGV[1], ARGV[i]) end
return 1
`;

/** Entries kept in a person's and a tenant's list, as the job store keeps its lists. */
const KEPT_PER_PERSON = 100;
const KEPT_PER_TENANT = 200;

export function redisQueue(client: RedisClientType, options: QueueOptions): QueueStore {
  const run = scriptRunner(client);
  /**
   * The queue's one way to write: every step is a script through here. Where a write must be
   * acknowledged by replicas before the step counts as done, this is the place to wait for them.
   */
  const queueScript = (script: string, args: readonly (string | number)[]) =>
    run(script, { keys: [], arguments: args.map(String) });
  const keep = options.keepMs;
  const key = (...parts: string[]) => `queue::${parts.join(":")}`;
  const read = async (ids: readonly string[]): Promise<QueueEntry[]> =>
    parseEntries(await Promise.all(ids.map((id) => client.hGetAll(key("e", id)))));
  const recent = async (list: string, limit: number) =>
    (await read(await client.zRange(list, "+inf", "-inf", { BY: "SCORE", REV: true }))).slice(0, limit);

  return {
    async enqueue(entry, limits) {
      const reply = await queueScript(ENQUEUE, [
        entry.id,
        tenantKey(entry.tenant),
        entry.userId,
        entry.at,
        entry.owner,
        entry.payload,
        limits.person,
        limits.queue,
        tenantCap(limits),
        KEPT_PER_PERSON,
        KEPT_PER_TENANT,
      ]);
      if (!Array.isArray(reply)) return { outcome: "full" };
      return reply[0] === "start" ? { outcome: "start" } : { outcome: "queued", ahead: Number(reply[1]) };
    },
    ready: async (id, message) => (await queueScript(READY, [id, message ?? ""])) === 1,
    async pick(tenant, limits, owner) {
      const reply = await queueScript(PICK, [tenantKey(tenant), owner, limits.person, tenantCap(limits)]);
      if (!Array.isArray(reply)) return undefined;
      const fields: Record<string, string> = {};
      for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
      return parseEntries([fields])[0];
    },
    calling: async (id, owner) => (await queueScript(CALLING, [id, owner])) === 1,
    async started(id) {
      await queueScript(STARTED, [id]);
    },
    end: async (id, state, reason, at) => (await queueScript(END, [id, state, reason, at, keep])) === 1,
    requeue: async (id, owner) => (await queueScript(REQUEUE, [id, owner])) === 1,
    async cancel(id, at) {
      const reply = await queueScript(CANCEL, [id, at, keep]);
      return reply === 1 ? "cancelled" : cancelAnswer(reply);
    },
    async release(tenant, ids) {
      if (ids.length > 0) await queueScript(RELEASE, [tenantKey(tenant), ...ids]);
    },
    async get(id) {
      return (await read([id]))[0];
    },
    queuedOf: async (tenant, userId) => read(await client.zRange(key("q", tenantKey(tenant), userId), 0, -1)),
    recentOf: (tenant, userId, limit) => recent(key("h", tenantKey(tenant), userId), limit),
    recentOfTenant: (tenant, limit) => recent(key("h", tenantKey(tenant)), limit),
    async slots(tenant) {
      const all = await client.hGetAll(key("s", tenantKey(tenant)));
      return Object.entries(all).map(([id, userId]) => ({ id, userId }));
    },
    async tenants() {
      return (await client.sMembers(key("tenants"))).flatMap((tk) => {
        try {
          return [tenantOfKey(tk)];
        } catch {
          return [];
        }
      });
    },
    async ownedBy(owner) {
      const owned = await read(await client.sMembers(key("o", owner)));
      return owned.filter((entry) => ["preparing", "starting", "calling"].includes(entry.state));
    },
  };
}
