import type { ServerResponse } from 'node:http';
import type { CancelSignal } from '@gw/upstream';

/**
 * Fires once when the client's connection closes before its answer was finished: the upstream call is
 * then cancelled. One small object per request where an AbortController would cost an EventTarget with
 * its listener map; it holds a single listener, which is all the upstream client ever registers at once.
 */
export class ClientGone implements CancelSignal {
  aborted = false;
  private listener?: () => void;

  constructor(private readonly res: ServerResponse) {
    res.once('close', this.onClose);
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
  }

  /**
   * Cancels the upstream call although the client is still there (its reserve was refused while the call
   * ran beside it): the client is answered with the refusal instead.
   */
  cancel(): void {
    this.onClose();
  }

  /** The request is over: stop watching the connection. */
  release(): void {
    this.res.off('close', this.onClose);
    this.listener = undefined;
  }

  private readonly onClose = (): void => {
    if (this.res.writableFinished || this.aborted) return;
    this.aborted = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  };
}
