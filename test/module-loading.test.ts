/**
 * Tests load the server as it runs: as ES modules, each once. Loaded through `require` (mocha's
 * choice where Node can require ES modules, tsx then compiling each file to CommonJS), the modules
 * the server imports on first use (the console, the badges) were a second copy of everything they
 * import, so the console's `instanceof ApiError` missed the API's 429 and answered 500.
 */
import { expect } from 'chai';
import { ApiError } from '@trailproof/server';

describe('how the tests load the packages', () => {
  it('a module imported on first use is the same module the test imported', async () => {
    const later = await import('@trailproof/server');
    expect(later.ApiError).to.equal(ApiError);
  });
});
