import { Injectable } from '@nestjs/common';
import { allowIpMatcher } from './allow-ips.js';
import { toTokenSnapshot, type TokenSnapshot } from './relay-identity.js';
import { sameKey } from './token-key.js';
import type { TokenEntity } from './token.entity.js';
import { TokenRepository } from './token.repository.js';

export interface IndexedToken {
  snapshot: TokenSnapshot;
  allows: (ip: string) => boolean;
}

/** Unknown keys are remembered this long, so a flood of bad keys does not reach the database. */
const NEGATIVE_TTL_MS = 10_000;
const NEGATIVE_MAX = 50_000;
/** Stored keys are at most 128 characters: anything longer cannot exist and is refused without a query. */
const MAX_KEY_LENGTH = 128;

/**
 * Every live token in memory, by key and by id. Built at boot and every SYNC_FREQUENCY seconds;
 * single tokens are refreshed after a write (here or, through Redis, on another instance). A key
 * missing from the map costs one database read (then it is cached, or negatively cached briefly),
 * which also covers tokens created on another instance before its message arrives.
 */
@Injectable()
export class TokenIndex {
  private byKey = new Map<string, IndexedToken>();
  private byId = new Map<number, IndexedToken>();
  private readonly unknownKeys = new Map<string, number>();
  private readonly pendingLookups = new Map<string, Promise<IndexedToken | undefined>>();
  private reloading?: Promise<void>;
  /** Ids refreshed while a full reload was reading: re-applied after it, so the reload cannot undo them. */
  private changedDuringReload?: Set<number>;

  constructor(private readonly tokens: TokenRepository) {}

  get(id: number): IndexedToken | undefined {
    return this.byId.get(id);
  }

  async lookup(key: string): Promise<IndexedToken | undefined> {
    if (!key || key.length > MAX_KEY_LENGTH) return undefined;
    const hit = this.byKey.get(key);
    if (hit) return sameKey(hit.snapshot.key, key) ? hit : undefined;
    const until = this.unknownKeys.get(key);
    if (until !== undefined && until > Date.now()) return undefined;
    let pending = this.pendingLookups.get(key);
    if (!pending) {
      pending = this.loadKey(key).finally(() => this.pendingLookups.delete(key));
      this.pendingLookups.set(key, pending);
    }
    return pending;
  }

  /** Rebuilds from the database; concurrent calls share one reload. */
  reload(): Promise<void> {
    this.reloading ??= (async () => {
      this.changedDuringReload = new Set();
      try {
        const rows = await this.tokens.findAllLive();
        const byKey = new Map<string, IndexedToken>();
        const byId = new Map<number, IndexedToken>();
        for (const row of rows) {
          const entry = index(row);
          byKey.set(row.key, entry);
          byId.set(row.id, entry);
        }
        this.byKey = byKey;
        this.byId = byId;
        this.unknownKeys.clear();
        const changed = [...this.changedDuringReload];
        this.changedDuringReload = undefined;
        await Promise.all(changed.map((id) => this.refresh(id)));
      } finally {
        this.changedDuringReload = undefined;
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  /** Re-reads one token after a write (deleted rows leave the index). */
  async refresh(id: number): Promise<void> {
    this.changedDuringReload?.add(id);
    const row = await this.tokens.findById(id);
    this.drop(id);
    if (row) this.put(row);
    // A key that was unknown a moment ago may exist now.
    this.unknownKeys.clear();
  }

  /** In-memory status change (the caller persists it). */
  setStatus(id: number, status: number): void {
    const entry = this.byId.get(id);
    if (entry) entry.snapshot.status = status;
  }

  private async loadKey(key: string): Promise<IndexedToken | undefined> {
    const row = await this.tokens.findByKey(key);
    if (!row) {
      if (this.unknownKeys.size >= NEGATIVE_MAX) this.unknownKeys.clear();
      this.unknownKeys.set(key, Date.now() + NEGATIVE_TTL_MS);
      return undefined;
    }
    this.drop(row.id);
    return this.put(row);
  }

  private put(row: TokenEntity): IndexedToken {
    const entry = index(row);
    this.byKey.set(row.key, entry);
    this.byId.set(row.id, entry);
    return entry;
  }

  private drop(id: number): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    if (this.byKey.get(old.snapshot.key) === old) this.byKey.delete(old.snapshot.key);
  }
}

function index(row: TokenEntity): IndexedToken {
  const snapshot = toTokenSnapshot(row);
  return { snapshot, allows: allowIpMatcher(snapshot.allowIps) };
}
