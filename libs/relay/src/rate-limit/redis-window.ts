import type { Redis } from 'ioredis';

/**
 * The same sliding logs in Redis sorted sets, one atomic script per step, timed by the Redis clock so
 * that every instance counts against one log whatever its own clock says.
 * KEYS[1] = log; ARGV = max, window ms, mode (0 = check, 1 = take, 2 = record), unique member suffix.
 */
const SCRIPT = `
-- Redis < 5 must be told to replicate effects before a script writes after TIME; later versions always do.
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local mode = ARGV[3]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if mode == '0' then return count < max and 1 or 0 end
if mode == '1' and count >= max then return 0 end
redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[4])
if mode == '2' and count + 1 > max then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, count - max) end
redis.call('PEXPIRE', KEYS[1], window)
return 1
`;

export type WindowMode = 'check' | 'take' | 'record';
const MODE_ARG: Record<WindowMode, string> = { check: '0', take: '1', record: '2' };

let sequence = 0;

export async function redisWindow(redis: Redis, key: string, mode: WindowMode, max: number, windowMs: number): Promise<boolean> {
  const member = `${process.pid}:${++sequence}:${Math.random().toString(36).slice(2, 8)}`;
  const result = await redis.eval(SCRIPT, 1, key, String(max), String(windowMs), MODE_ARG[mode], member);
  return result === 1;
}
