#!/usr/bin/env node
// The `trailproof` command: the bundled JavaScript (dist/bundle/, from `pnpm build`), run by plain node.
await import('../dist/bundle/main.js');
