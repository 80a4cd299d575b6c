#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx's loader: no build step between a clone and a server.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
