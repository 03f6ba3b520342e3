// A release feed on loopback in the shape of GitHub's `GET /repos/{owner}/{repo}/releases/latest`, for the
// update check (e2e and browser): each answer is set by the test, including a dropped connection.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the next requests get: a status and a raw body, or a connection closed without an answer. */
export type FeedAnswer = { status: number; body: string } | 'drop';

export interface FakeReleaseFeed {
  /** The feed's URL (what UPDATE_CHECK_URL is set to). */
  url: string;
  /** The headers of every request received, in order. */
  requests: IncomingHttpHeaders[];
  answer: FeedAnswer;
  close(): Promise<void>;
}

export const FEED_PATH = '/repos/acme/gateway/releases/latest';

/** A release as GitHub describes it, with its notes and page; `fields` overrides or adds any key. */
export function releaseAnswer(tag: string, fields: Record<string, unknown> = {}): FeedAnswer {
  const release = {
    tag_name: tag,
    name: `Gateway ${tag}`,
    body: `## What's new in ${tag}\n\n- faster relays\n- <b>bold</b> claims`,
    html_url: `https://github.com/acme/gateway/releases/tag/${tag}`,
    published_at: '2025-06-01T08:00:00Z',
    draft: false,
    prerelease: false,
    assets: [],
    ...fields,
  };
  return { status: 200, body: JSON.stringify(release) };
}

export async function startFakeReleaseFeed(answer: FeedAnswer = releaseAnswer('v1.0.0')): Promise<FakeReleaseFeed> {
  const feed: FakeReleaseFeed = { url: '', requests: [], answer, close: async () => undefined };
  const server = createServer((req, res) => {
    feed.requests.push(req.headers);
    if (req.url !== FEED_PATH) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
    const current = feed.answer;
    if (current === 'drop') return void req.socket.destroy();
    res.writeHead(current.status, { 'content-type': 'application/json; charset=utf-8' }).end(current.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  feed.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${FEED_PATH}`;
  feed.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return feed;
}
