// One Rsbuild config shape for the shell and the three remotes; each app only says what differs.
import { defineConfig, type RsbuildConfig } from '@rsbuild/core';
import { pluginReact } from '@rsbuild/plugin-react';
import { pluginSass } from '@rsbuild/plugin-sass';
import { SemiRspackPlugin } from '@douyinfe/semi-rspack-plugin';
import { pluginModuleFederation } from '@module-federation/rsbuild-plugin';
import type { SharedModuleMeta, SharedSingleton } from '../mf/shared.ts';

/** The console's Semi theme package (DESIGN.md): its tokens replace Semi's defaults in light and dark mode. */
export const SEMI_THEME = '@semi-bot/semi-theme-default';

export type ConsoleAppName = 'shell' | 'admin' | 'user' | 'playground';

/** Dev ports, set once: gateway 3000, then one port per app. */
export const DEV_PORTS: Record<ConsoleAppName | 'gateway', number> = {
  gateway: 3000,
  shell: 3100,
  admin: 3101,
  user: 3102,
  playground: 3103,
};

export interface ConsoleAppOptions {
  name: ConsoleAppName;
  shared: Record<SharedSingleton, SharedModuleMeta>;
  /** Remotes only: the modules the shell may load. */
  exposes?: Record<string, string>;
  title?: string;
  define?: Record<string, string>;
  /** Rsbuild's command: only a build may empty dist/, so a dev server never wipes what the gateway serves. */
  command?: string;
}

export function defineConsoleApp(options: ConsoleAppOptions): RsbuildConfig {
  const isShell = options.name === 'shell';
  const gateway = `http://localhost:${DEV_PORTS.gateway}`;
  return defineConfig({
    plugins: [
      pluginReact(),
      // Semi's component styles are compiled from SCSS with the design card's theme tokens (the plugin
      // rewrites Semi's .css imports to .scss). Every app applies it: the shared Semi comes from whichever
      // app loads it first.
      pluginSass(),
      pluginModuleFederation({
        name: options.name === 'shell' ? 'console_shell' : `console_${options.name}`,
        exposes: options.exposes,
        // Remotes are registered at runtime from GET /api/console/remotes, never at build time.
        remotes: {},
        shared: options.shared,
        // version-first would fetch every remote's manifest at start, so one dead remote would block all.
        shareStrategy: 'loaded-first',
        dts: false,
      }),
    ],
    source: {
      entry: { index: './src/index.ts' },
      define: options.define,
    },
    tools: {
      rspack: (_config, { appendPlugins }) => {
        appendPlugins(new SemiRspackPlugin({ theme: SEMI_THEME }));
      },
    },
    html: { title: options.title ?? 'AI Gateway', template: isShell ? './index.html' : undefined },
    // A remote's chunks must resolve against wherever its manifest was fetched from, not the shell's origin.
    output: { assetPrefix: isShell ? '/' : 'auto', cleanDistPath: options.command === 'build', legalComments: 'none' },
    server: {
      port: DEV_PORTS[options.name],
      strictPort: true,
      historyApiFallback: true,
      proxy: Object.fromEntries(['/api', '/pg', '/v1', '/mj'].map((path) => [path, { target: gateway, changeOrigin: true }])),
    },
    dev: { assetPrefix: isShell ? '/' : 'auto' },
    // Vendor grouping would merge the kit's light and heavy halves into one chunk; plain async splitting keeps them apart.
    performance: { chunkSplit: { strategy: 'custom', splitChunks: { chunks: 'async', minSize: 20_000 } } },
  });
}
