/**
 * The environments page is written as text (http/views/environments.ts) and one environment is
 * read as a record (`environmentFromRow`, the store): both must say the same.
 */
import { expect } from 'chai';
import type { EnvironmentListRow } from '../../store/queries/environment-list.ts';
import { environmentFromRow } from '../../store/queries/environments.ts';
import { environmentItemsJson } from './environments.ts';

const row = (changes: Partial<EnvironmentListRow>): EnvironmentListRow =>
  ({
    id: 1,
    organization_id: 1,
    name: 'prod "eu"',
    name_lower: 'prod "eu"',
    type: 'K8S',
    description: 'main\ncluster',
    include_scaling: 1,
    tags: '{"team":"a","n":2}',
    policies: '["p1"]',
    included_environments: '[]',
    space_id: null,
    last_modified_at: 10.5,
    last_reported_at: null,
    last_changed_at: null,
    state: null,
    ...changes,
  }) as EnvironmentListRow;

describe('the environments page as text', () => {
  it('says what environmentFromRow says, reported or not', () => {
    const rows = [
      row({}),
      row({ name: 'staging', include_scaling: 0, last_reported_at: 20, last_changed_at: 15, state: 1, tags: '{}' }),
      row({ state: 0, last_reported_at: 30 }),
    ];
    expect(JSON.parse(environmentItemsJson(rows, 'acme "corp"'))).to.deep.equal(rows.map((r) => environmentFromRow(r, 'acme "corp"')));
  });
});
