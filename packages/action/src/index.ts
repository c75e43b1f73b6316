/** Entry point of the GitHub Action (bundled to dist/index.js). */
import { run } from './main.ts';

await run();
