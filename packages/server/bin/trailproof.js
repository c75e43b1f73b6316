#!/usr/bin/env node
// The `trailproof` command: the built JavaScript (dist/, from `pnpm build`), run by plain node.
await import('../dist/cli/main.js');
