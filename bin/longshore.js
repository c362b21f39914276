#!/usr/bin/env node
// Runs the TypeScript sources through tsx in a checkout (src/ present), or the compiled output
// (dist/) in an installed package or container image, so `npx longshore` works right after
// `npm install` with no build step.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = `${root}src/cli.ts`;
const compiled = `${root}dist/src/cli.js`;

let entry;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = source;
} else {
  entry = compiled;
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv);
