import { Component, type ReactNode } from 'react';
import type { RemoteName } from '@console/kit';
import { RemoteErrorPanel } from './RemoteErrorPanel';

interface Props {
  remote: RemoteName;
  onRetry(): void;
  children: ReactNode;
}

/** A remote that throws while rendering is contained here, so the layout and other remotes keep working. */
export class RemoteErrorBoundary extends Component<Props, { error: Error | null }> {
  override state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (this.state.error) return <RemoteErrorPanel remote={this.props.remote} error={this.state.error} onRetry={this.props.onRetry} />;
    return this.props.children;
  }
}
