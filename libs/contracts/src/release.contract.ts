/** `GET /api/status/update` data: the running version against the release feed's latest release. */
export interface ReleaseCheckView {
  /** The running gateway's VERSION. */
  current: string;
  /** The latest release's tag (`tag_name`). */
  latest: string;
  /** True when `latest` is a later semantic version than `current`. */
  newer: boolean;
  /** The release's title (its tag when it has none). */
  name: string;
  /** The release notes as the feed wrote them (Markdown): to be shown as text, never as HTML. */
  notes: string;
  /** The release page (http or https only; empty when the feed gave none). */
  url: string;
  /** When it was published (ISO 8601, empty when unknown). */
  published_at: string;
}
