import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { ClientGone } from './client-gone.js';

const response = (writableFinished = false) =>
  Object.assign(new EventEmitter(), { writableFinished }) as unknown as ServerResponse & EventEmitter;

describe('ClientGone', () => {
  it('fires its listener once when the connection closes before the answer finished', () => {
    const res = response();
    const gone = new ClientGone(res);
    const listener = vi.fn();
    gone.addEventListener('abort', listener);
    res.emit('close');
    res.emit('close');
    expect(gone.aborted).toBe(true);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('stays quiet after a finished answer, a removed listener, or release()', () => {
    const finished = response(true);
    const afterFinish = new ClientGone(finished);
    const listener = vi.fn();
    afterFinish.addEventListener('abort', listener);
    finished.emit('close');
    expect(afterFinish.aborted).toBe(false);

    const res = response();
    const removed = new ClientGone(res);
    removed.addEventListener('abort', listener);
    removed.removeEventListener('abort', listener);
    res.emit('close');
    expect(listener).not.toHaveBeenCalled();

    const released = response();
    new ClientGone(released).release();
    expect(released.listenerCount('close')).toBe(0);
  });
});
