#!/usr/bin/env node
// `pnpm tix ...`: the admin CLI. A workspace bin rather than a root script, so that pnpm prints no
// banner and stdout carries exactly one JSON object.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
