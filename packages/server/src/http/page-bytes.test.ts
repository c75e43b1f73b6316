import { expect } from 'chai';
import { offsetPageLinks } from './links.ts';
import { countWithin, pageDataBytes } from './page-bytes.ts';

describe('pages bounded by bytes', () => {
  it('counts the leading items within the budget, one at least however large, none of none', () => {
    expect(countWithin([], 10)).to.equal(0);
    expect(countWithin([4, 4, 4], 10)).to.equal(2);
    expect(countWithin([4, 6, 1], 10)).to.equal(2);
    expect(countWithin([11, 1], 10)).to.equal(1);
    expect(countWithin([1, 2, 3], 10)).to.equal(3);
    expect(countWithin(Array(20).fill(1_000_100))).to.equal(4);
    expect(pageDataBytes).to.equal(4 * 1024 * 1024);
  });

  it('a page that stopped early links on by offset, keeping the other parameters; the page-number links drop the offset', () => {
    const links = offsetPageLinks('/api/v2/trails/acme/app/big?per_page=7&offset=3&page=9', 1, 7, 10);
    expect(links.self).to.deep.equal({ href: '/api/v2/trails/acme/app/big?per_page=7&offset=3&page=9' });
    expect(links.next).to.deep.equal({ href: '/api/v2/trails/acme/app/big?per_page=7&offset=10' });
    expect(links.first).to.deep.equal({ href: '/api/v2/trails/acme/app/big?per_page=7&page=1' });
    expect(links.last).to.deep.equal({ href: '/api/v2/trails/acme/app/big?per_page=7&page=7' });
    expect(offsetPageLinks('/t?offset=3', 1, 1, null).next).to.equal(null);
  });
});
