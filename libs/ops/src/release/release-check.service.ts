import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, BusinessError, outboundFetch } from '@gw/core';
import type { ReleaseCheckView } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { isNewerVersion, parseVersion } from './version-compare.js';

/** A successful answer is kept this long: the button cannot turn into a stream of calls to the feed. */
const RELEASE_CACHE_MS = 5 * 60_000;
const FEED_TIMEOUT_MS = 5_000;
/** GitHub's answer carries the notes and the asset list: tens of KiB; anything far larger is not a release. */
const FEED_MAX_BYTES = 512 * 1024;

/** The fields read from a feed in the shape of GitHub's `GET /repos/{owner}/{repo}/releases/latest`. */
interface ReleaseFeed {
  tag_name?: unknown;
  name?: unknown;
  body?: unknown;
  html_url?: unknown;
  published_at?: unknown;
}

export const NO_FEED = 'no release feed is set: the update check reads the one named by UPDATE_CHECK_URL';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Only a web page may become the console's link (no `javascript:` or `data:` from a feed). */
function webUrl(value: unknown): string {
  try {
    const url = new URL(text(value));
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : '';
  } catch {
    return '';
  }
}

/**
 * The console's update check (spec 000 "version info with update check"). new-api's browser called GitHub
 * itself; here the gateway reads UPDATE_CHECK_URL through the checked outbound client (private addresses
 * only with AllowPrivateOutboundUrls, no redirects, 5 s, 512 KiB), so the console's CSP stays same-origin.
 * Concurrent checks share one call; a success is cached for a few minutes, a failure is not.
 */
@Injectable()
export class ReleaseCheckService {
  private readonly logger = new Logger('ReleaseCheck');
  private cached?: { view: ReleaseCheckView; until: number };
  private pending?: Promise<ReleaseCheckView>;

  constructor(
    private readonly options: OptionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async check(): Promise<ReleaseCheckView> {
    if (this.cached && this.cached.until > Date.now()) return this.cached.view;
    this.pending ??= this.fetchLatest().finally(() => {
      this.pending = undefined;
    });
    const view = await this.pending;
    this.cached = { view, until: Date.now() + RELEASE_CACHE_MS };
    return view;
  }

  private async fetchLatest(): Promise<ReleaseCheckView> {
    const release = await this.readFeed();
    const latest = text(release.tag_name).trim();
    if (!parseVersion(latest)) throw new BusinessError('release feed has no valid version tag');
    const current = this.config.version;
    return {
      current,
      latest,
      newer: isNewerVersion(latest, current),
      name: text(release.name).trim() || latest,
      notes: text(release.body),
      url: webUrl(release.html_url),
      published_at: text(release.published_at),
    };
  }

  private async readFeed(): Promise<ReleaseFeed> {
    if (!this.config.updateCheckUrl) throw new BusinessError(NO_FEED);
    let body: unknown;
    try {
      const res = await outboundFetch(this.config.updateCheckUrl, {
        // GitHub's API refuses calls without a User-Agent.
        headers: { accept: 'application/vnd.github+json', 'user-agent': `ai-gateway/${this.config.version}` },
        allowPrivate: this.options.get('AllowPrivateOutboundUrls'),
        timeoutMs: FEED_TIMEOUT_MS,
        maxBytes: FEED_MAX_BYTES,
      });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      body = res.json();
    } catch (error) {
      const message = `release feed unreadable: ${(error as Error).message}`;
      this.logger.warn(message);
      throw new BusinessError(message);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new BusinessError('release feed is not a release object');
    }
    return body as ReleaseFeed;
  }
}
