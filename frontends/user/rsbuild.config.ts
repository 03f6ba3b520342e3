import { defineConfig } from '@rsbuild/core';
import { mfShared } from '../shared/mf/shared.ts';
import { defineConsoleApp } from '../shared/build/index.ts';

export default defineConfig(({ command }) =>
  defineConsoleApp({
    name: 'user',
    shared: mfShared(),
    exposes: { './App': './src/App.tsx' },
    command,
  }),
);
