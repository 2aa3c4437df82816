import type { RedisClient } from "../../redis/connect-redis.js";

/**
 * The Lua scripts that change an execution's record in Redis. Each runs atomically, so two
 * replicas racing (a cancel and a completion, two submits with one Idempotency-Key) leave
 * one consistent record. A record is a hash; its events are a list of ready-made JSON
 * lines (`{"id":n,"event":…,"data":…}`) that are also published for live readers.
 */

// Shared by the scripts that append an event: bump the counter, push, expire, publish.
const APPEND = `
local function append(rec, events, event, data, expireAt, channel)
  local n = redis.call("HINCRBY", rec, "evn", 1)
  local line = '{"id":' .. n .. ',"event":"' .. event .. '","data":' .. data .. '}'
  redis.call("RPUSH", events, line)
  redis.call("PEXPIREAT", events, expireAt)
  redis.call("PUBLISH", channel, line)
end
local function active(status) return status == "queued" or status == "running" or status == "input_required" end
`;

/**
 * KEYS: idem, active set, owner index, sequence, record. ARGV: id, fingerprint, max, expireAtMs,
 * nowIso, recordPrefix, tool, owner, expiresAtIso, "1" when KEYS[1] is an Idempotency-Key (else
 * it is only a key of the same hash tag: an empty key name would hash to another Cluster slot).
 */
const SUBMIT = `
local ik = ""
if ARGV[10] == "1" then ik = KEYS[1] end
if ik ~= "" then
  local prev = redis.call("GET", ik)
  if prev then
    local fp = redis.call("HGET", ARGV[6] .. prev, "fp")
    if fp then
      if fp ~= ARGV[2] then return {"reused"} end
      return {"replay", prev}
    end
  end
end
-- Ids whose record vanished (expired while nobody finished them) no longer count. Looked for
-- only at the limit: below it every submit would pay a read per execution the caller has active.
if redis.call("SCARD", KEYS[2]) >= tonumber(ARGV[3]) then
  for _, id in ipairs(redis.call("SMEMBERS", KEYS[2])) do
    if redis.call("EXISTS", ARGV[6] .. id) == 0 then redis.call("SREM", KEYS[2], id) end
  end
  if redis.call("SCARD", KEYS[2]) >= tonumber(ARGV[3]) then return {"overloaded"} end
end
local seq = redis.call("INCR", KEYS[4])
redis.call("HSET", KEYS[5], "id", ARGV[1], "tool", ARGV[7], "owner", ARGV[8], "status", "queued",
  "createdAt", ARGV[5], "updatedAt", ARGV[5], "expiresAt", ARGV[9], "fp", ARGV[2], "seq", seq, "evn", 0, "exp", ARGV[4], "ik", ik)
redis.call("PEXPIREAT", KEYS[5], ARGV[4])
redis.call("ZADD", KEYS[3], seq, ARGV[1])
redis.call("SADD", KEYS[2], ARGV[1])
if ik ~= "" then redis.call("SET", ik, ARGV[1], "PXAT", ARGV[4]) end
return {"created"}
`;

/**
 * KEYS: record. ARGV: nowIso, run (the job's lock token, or an adopted call's own id). 1 when a
 * queued execution turned running as this run, or already had (the reply of that start was lost
 * with its connection, in an outage or a failover, and the start is retried); else 0 (cancelled,
 * gone, or started by another run: a worker that took the job again must not run it twice).
 */
const START = `
local status = redis.call("HGET", KEYS[1], "status")
if status == "running" and redis.call("HGET", KEYS[1], "run") == ARGV[2] then return 1 end
if status ~= "queued" then return 0 end
redis.call("HSET", KEYS[1], "status", "running", "updatedAt", ARGV[1], "run", ARGV[2])
return 1
`;

/** KEYS: record, events. ARGV: nowIso, progress JSON, channel. */
const PROGRESS = `${APPEND}
if not active(redis.call("HGET", KEYS[1], "status")) then return 0 end
redis.call("HSET", KEYS[1], "progress", ARGV[2], "updatedAt", ARGV[1])
append(KEYS[1], KEYS[2], "progress", ARGV[2], redis.call("HGET", KEYS[1], "exp"), ARGV[3])
return 1
`;

/** KEYS: record, events. ARGV: nowIso, inputRequests JSON, channel. The held call asks: 1 when it now waits, 0 when it ended. */
const ASK = `${APPEND}
if not active(redis.call("HGET", KEYS[1], "status")) then return 0 end
redis.call("HSET", KEYS[1], "status", "input_required", "inputs", ARGV[2], "updatedAt", ARGV[1])
redis.call("HDEL", KEYS[1], "answered")
append(KEYS[1], KEYS[2], "input_required", '{"inputRequests":' .. ARGV[2] .. '}', redis.call("HGET", KEYS[1], "exp"), ARGV[3])
return 1
`;

/**
 * KEYS: record. ARGV: nowIso, the inputs JSON the answer was checked against. The one answer
 * that finds the execution still waiting on those requests turns it running ("ok"); any other
 * gets the status it found, so two answers racing from two replicas deliver one.
 */
const ANSWER = `
local status = redis.call("HGET", KEYS[1], "status")
if status ~= "input_required" or redis.call("HGET", KEYS[1], "inputs") ~= ARGV[2] then return status or "gone" end
redis.call("HSET", KEYS[1], "status", "running", "updatedAt", ARGV[1])
redis.call("HDEL", KEYS[1], "inputs", "answered")
return "ok"
`;

/**
 * KEYS: record. ARGV: nowIso, the inputs JSON the answer was checked against, the requests
 * still open, the responses given so far. A partial answer: kept while the execution still
 * waits on those requests ("ok"), else the status it found.
 */
const PARTIAL = `
local status = redis.call("HGET", KEYS[1], "status")
if status ~= "input_required" or redis.call("HGET", KEYS[1], "inputs") ~= ARGV[2] then return status or "gone" end
redis.call("HSET", KEYS[1], "inputs", ARGV[3], "answered", ARGV[4], "updatedAt", ARGV[1])
return "ok"
`;

/**
 * KEYS: record, events, active set, owner index, owner's finished index, sequence. ARGV: nowIso,
 * status, "result"|"error", JSON, expireAtMs, expiresAtIso, channel, id, maxRetained,
 * recordPrefix, jobKey ("" for none). 1 when it ended here, 0 when it was already terminal
 * (or, given a jobKey, when it is not queued or its job exists: the sweep of orphans). Past maxRetained
 * finished executions of the owner, those that finished first are deleted with their events
 * and Idempotency-Key (retention alone would let one caller fill Redis with a day of results);
 * the one finishing here is the newest, so it is never among them.
 */
const FINISH = `${APPEND}
local status = redis.call("HGET", KEYS[1], "status")
if not active(status) then return 0 end
if ARGV[11] ~= "" and (status ~= "queued" or redis.call("EXISTS", ARGV[11]) == 1) then return 0 end
redis.call("HSET", KEYS[1], "status", ARGV[2], ARGV[3], ARGV[4], "updatedAt", ARGV[1], "expiresAt", ARGV[6], "exp", ARGV[5])
redis.call("HDEL", KEYS[1], "inputs")
redis.call("PEXPIREAT", KEYS[1], ARGV[5])
redis.call("SREM", KEYS[3], ARGV[8])
local ik = redis.call("HGET", KEYS[1], "ik")
if ik and ik ~= "" then redis.call("PEXPIREAT", ik, ARGV[5]) end
append(KEYS[1], KEYS[2], ARGV[3] == "result" and "result" or "error", ARGV[4], ARGV[5], ARGV[7])
redis.call("ZADD", KEYS[5], redis.call("INCR", KEYS[6]), ARGV[8])
redis.call("PEXPIREAT", KEYS[5], ARGV[5])
local excess = redis.call("ZCARD", KEYS[5]) - tonumber(ARGV[9])
if excess > 0 then
  for _, id in ipairs(redis.call("ZRANGE", KEYS[5], 0, excess - 1)) do
    local rec = ARGV[10] .. id
    local oldIk = redis.call("HGET", rec, "ik")
    if oldIk and oldIk ~= "" and redis.call("GET", oldIk) == id then redis.call("DEL", oldIk) end
    redis.call("DEL", rec, rec .. ":events")
    redis.call("ZREM", KEYS[4], id)
  end
  redis.call("ZREMRANGEBYRANK", KEYS[5], 0, excess - 1)
end
return 1
`;

/** The scripts as commands on a connection. */
export interface ExecutionCommands {
  tnxSubmit(...args: string[]): Promise<string[]>;
  tnxStart(...args: string[]): Promise<number>;
  tnxProgress(...args: string[]): Promise<number>;
  tnxFinish(...args: string[]): Promise<number>;
  tnxAsk(...args: string[]): Promise<number>;
  tnxAnswer(...args: string[]): Promise<string>;
  tnxPartial(...args: string[]): Promise<string>;
}

/** Defines the scripts on `redis` (sent once, then run by their SHA). */
export function withExecutionCommands<R extends RedisClient>(redis: R): R & ExecutionCommands {
  redis.defineCommand("tnxSubmit", { numberOfKeys: 5, lua: SUBMIT });
  redis.defineCommand("tnxStart", { numberOfKeys: 1, lua: START });
  redis.defineCommand("tnxProgress", { numberOfKeys: 2, lua: PROGRESS });
  redis.defineCommand("tnxFinish", { numberOfKeys: 6, lua: FINISH });
  redis.defineCommand("tnxAsk", { numberOfKeys: 2, lua: ASK });
  redis.defineCommand("tnxAnswer", { numberOfKeys: 1, lua: ANSWER });
  redis.defineCommand("tnxPartial", { numberOfKeys: 1, lua: PARTIAL });
  return redis as R & ExecutionCommands;
}
