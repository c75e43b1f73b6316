/** rowsOfIds: a page's rows read a chunk at a time, with a turn of the event loop between two statements and none after the last. */
import { expect } from 'chai';
import { rowsOfIds } from './rows-of-ids.ts';

describe('rowsOfIds', () => {
  it('answers in the order of the ids, leaving out ids without a row', async () => {
    const rows = await rowsOfIds(
      [3, 1, 2],
      2,
      async (chunk) => chunk.filter((id) => id !== 1).map((id) => ({ id: String(id) })),
      (r) => Number(r.id),
    );
    expect(rows).to.deep.equal([3, 2]);
  });

  it('lets other work run between two statements, and answers at once after the last', async () => {
    const seen: boolean[] = [];
    let turned = false;
    await rowsOfIds(
      [1, 2],
      1,
      async (chunk) => {
        seen.push(turned);
        turned = false;
        setImmediate(() => (turned = true));
        return chunk.map((id) => ({ id }));
      },
      (r) => r.id,
    );
    // The second read came after a turn; the answer came before the turn the last read scheduled.
    expect(seen).to.deep.equal([false, true]);
    expect(turned).to.equal(false);
  });
});
