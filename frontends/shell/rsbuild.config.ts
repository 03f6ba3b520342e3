import { defineConfig } from '@rsbuild/core';
import { mfShared } from '../shared/mf/shared.ts';
import { DEV_PORTS, defineConsoleApp } from '../shared/build/index.ts';

// In dev each remote runs on its own port with hot reload; a built shell asks the gateway instead.
const devRemotes = {
  admin: `http://localhost:${DEV_PORTS.admin}/mf-manifest.json`,
  user: `http://localhost:${DEV_PORTS.user}/mf-manifest.json`,
  playground: `http://localhost:${DEV_PORTS.playground}/mf-manifest.json`,
};

export default defineConfig(({ command }) =>
  defineConsoleApp({
    name: 'shell',
    shared: mfShared(),
    define: { 'process.env.CONSOLE_DEV_REMOTES': JSON.stringify(command === 'dev' ? JSON.stringify(devRemotes) : '') },
    command,
  }),
);
