/**
 * What a remote exposes as `./App`: one component that renders the page the shell asks for. The shell owns
 * the URL table (which path goes to which remote and page); the remote owns everything under that page.
 */
export interface RemoteAppProps {
  page: string;
}

export type RemoteName = 'admin' | 'user' | 'playground';
export const REMOTE_NAMES: readonly RemoteName[] = ['admin', 'user', 'playground'];
