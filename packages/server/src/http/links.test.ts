import { expect } from 'chai';
import { pageLinks } from '@trailproof/server/plugin-kit';

describe('page links', () => {
  it('repeat the query with only page changed, in its place', () => {
    const links = pageLinks('/api/v2/deployments/acme?env_name=prod&page=2&per_page=10', 2, 3);
    expect(links.self.href).to.equal('/api/v2/deployments/acme?env_name=prod&page=2&per_page=10');
    expect(links.first!.href).to.equal('/api/v2/deployments/acme?env_name=prod&page=1&per_page=10');
    expect(links.prev!.href).to.equal('/api/v2/deployments/acme?env_name=prod&page=1&per_page=10');
    expect(links.next!.href).to.equal('/api/v2/deployments/acme?env_name=prod&page=3&per_page=10');
    expect(links.last!.href).to.equal('/api/v2/deployments/acme?env_name=prod&page=3&per_page=10');
  });

  it('append page when the query has none, and have no prev on the first page nor next on the last', () => {
    expect(pageLinks('/x', 1, 1)).to.deep.equal({
      self: { href: '/x' },
      first: { href: '/x?page=1' },
      prev: null,
      next: null,
      last: { href: '/x?page=1' },
    });
    expect(pageLinks('/x?sort=name', 1, 2).next!.href).to.equal('/x?sort=name&page=2');
  });

  it('keep the first page parameter only, and encode the other values as URLSearchParams does', () => {
    const links = pageLinks('/x?a=%E2%82%AC&page=9&q=a%26b+c&page=8&tag=k:v', 9, 12);
    expect(links.next!.href).to.equal('/x?a=%E2%82%AC&page=10&q=a%26b+c&tag=k%3Av');
    const reference = new URLSearchParams('a=%E2%82%AC&page=9&q=a%26b+c&page=8&tag=k:v');
    reference.set('page', '10');
    expect(links.next!.href).to.equal(`/x?${reference}`);
  });

  it('point prev at the last page from beyond it, and answer no page links when there are no pages', () => {
    expect(pageLinks('/x?page=7', 7, 3).prev!.href).to.equal('/x?page=3');
    expect(pageLinks('/x?page=7', 7, 3).next).to.equal(null);
    expect(pageLinks('/x?page=2', 2, 0)).to.deep.equal({ self: { href: '/x?page=2' }, first: null, prev: null, next: null, last: null });
  });
});
