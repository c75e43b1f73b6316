import type { Static } from '@sinclair/typebox';
import { expect } from 'chai';
import * as contract from '@trailproof/schema';
import { attestJunit, createValidator, getApproval, listEnvironments, type Operation } from '@trailproof/schema';
import { EnvironmentType } from '@trailproof/schema/schemas';

describe('createValidator', () => {
  const validators = createValidator([attestJunit, listEnvironments, getApproval]);

  describe('query and path parameters (text, coerced)', () => {
    const query = validators('listEnvironments').query;

    it('turns digits into the integers the schema wants and fills in defaults', () => {
      expect(query({ page: '2', per_page: '10' })).to.deep.equal({ ok: true, value: { page: 2, per_page: 10, sort: 'name', sort_direction: 'asc' } });
      expect(validators('getApproval').params({ org: 'acme', flow_name: 'backend', approval_number: '-1' })).to.deep.equal({
        ok: true,
        value: { org: 'acme', flow_name: 'backend', approval_number: -1 },
      });
    });

    it('refuses numbers written loosely (exponent, spaces, plus sign) rather than read them as another number', () => {
      for (const page of ['1e3', ' 2', '+2', '2.0']) {
        const result = query({ page });
        expect(result.ok, page).to.equal(false);
        if (!result.ok) expect(result.errors, page).to.have.property('query.page');
      }
    });

    it('makes a single value of a repeatable parameter a list, and refuses a repeated scalar', () => {
      expect(query({ type: 'K8S' }))
        .to.deep.include({ ok: true })
        .and.to.have.nested.property('value.type')
        .that.deep.equals(['K8S']);
      const repeated = query({ name: ['a', 'b'] });
      expect(repeated.ok).to.equal(false);
      if (!repeated.ok) expect(repeated.errors).to.have.property('query.name');
    });

    it('names an unknown parameter (a misspelt filter) instead of ignoring it', () => {
      expect(query({ env_nme: 'prod' })).to.deep.equal({ ok: false, errors: { 'query.env_nme': 'is not a known query parameter' } });
    });

    it('says once which values a union of literals allows, naming the value sent', () => {
      expect(query({ sort: 'size' })).to.deep.equal({
        ok: false,
        errors: { 'query.sort': "'size' is not allowed: must be one of: name, last_modified_at, last_changed_at" },
      });
    });
  });

  describe('body data', () => {
    const data = validators('attestJunit').data;
    const suite = { name: 'unit', failures: 0, errors: 0, skipped: 0, total: 1, duration: 0.5 };

    it('accepts what the schema describes', () => {
      expect(data({ attestation_name: 'junit', junit_results: [suite] }).ok).to.equal(true);
    });

    it('names each field at fault by its path, with the refused value for a pattern', () => {
      const result = data({ attestation_name: 'a b', junit_results: [{ ...suite, failures: -1 }], colour: 'red' });
      expect(result).to.deep.equal({
        ok: false,
        errors: {
          attestation_name: "'a b' does not match ^[a-zA-Z0-9\\-_,]+$",
          'junit_results.0.failures': 'must be >= 0',
          colour: 'is not a known field',
        },
      });
      expect(data({ junit_results: [] })).to.deep.equal({ ok: false, errors: { attestation_name: 'is required' } });
    });

    it('names a field called __proto__ like any other', () => {
      const result = data(JSON.parse('{"attestation_name": "junit", "junit_results": [], "__proto__": 1}'));
      expect(result.ok).to.equal(false);
      if (!result.ok) expect(Object.keys(result.errors)).to.deep.equal(['__proto__']);
    });
  });

  it('refuses two different schemas under one $id, at start-up', () => {
    const clash = { ...listEnvironments, id: 'clash', schemas: [{ ...EnvironmentType }] } as Operation;
    expect(() => createValidator([listEnvironments, clash])).to.throw("two different schemas share the $id 'EnvironmentType'");
  });

  it('types a union of literals as those literals, not as string', () => {
    const kind: Static<typeof EnvironmentType> = 'K8S';
    // @ts-expect-error: 'k8s' is not an environment type (this line would compile were the type widened to string)
    const wrong: Static<typeof EnvironmentType> = 'k8s';
    expect([kind, wrong]).to.have.length(2);
  });
});

describe('createValidator compiles on first use', () => {
  it("compiles an operation's validators when they are first used, not when it is built", () => {
    // A schema Ajv cannot compile: building the validator does not notice, the first use does.
    const broken = { ...getApproval, id: 'broken', query: { ...getApproval.query, properties: { page: { type: 'no-such-type' } } } } as unknown as Operation;
    const validators = createValidator([getApproval, broken]);
    expect(validators('getApproval').params({ org: 'acme', flow_name: 'backend', approval_number: '1' }).ok).to.equal(true);
    expect(() => validators('broken').query({})).to.throw(/no-such-type|type must be/);
  });

  it('compiles every operation of the contract', () => {
    const operations = (Object.values(contract) as unknown[]).filter(
      (value): value is Operation => typeof value === 'object' && value !== null && 'id' in value && 'method' in value && 'query' in value,
    );
    expect(operations.length).to.be.above(30);
    const validators = createValidator(operations);
    for (const operation of operations) {
      const v = validators(operation.id);
      expect(() => [v.params({}), v.query({}), v.data({})], operation.id).not.to.throw();
    }
  });
});

describe('createValidator checks the registered schemas on first use', () => {
  it('refuses a named schema the meta-schema refuses when an operation is first used, not when built', () => {
    const broken = { $id: 'BrokenShared', type: 'object', required: 'name' };
    const operation = { ...getApproval, id: 'withBrokenShared', schemas: [broken] } as unknown as Operation;
    const validators = createValidator([operation]);
    expect(() => validators('withBrokenShared').params({ org: 'acme', flow_name: 'f', approval_number: '1' })).to.throw(
      /schema is invalid: data\/required must be array/,
    );
  });
});
