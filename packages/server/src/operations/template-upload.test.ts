import { expect } from 'chai';
import { requireValidTemplate } from './template-upload.ts';

const keys = (n: number) => 'version: 1\n' + Array.from({ length: n }, (_, i) => `k${i}: 1\n`).join('');

describe('an uploaded flow template', () => {
  it('an upload over the byte bound is a 400 that names it in errors.template_file', () => {
    try {
      requireValidTemplate(new TextEncoder().encode(keys(20_000)));
      expect.fail('accepted');
    } catch (error) {
      const { status, errors } = error as { status: number; errors: Record<string, string> };
      expect(status).to.equal(400);
      expect(errors.template_file).to.match(/^a template may be at most 65536 bytes \(this one has \d+\)$/);
    }
  });
});
