import { expect } from 'chai';
import {
  consistencyProof,
  emptyRoot,
  inclusionProof,
  leafHash,
  MemoryTree,
  rootOfLeafHashes,
  verifyConsistency,
  verifyInclusion,
  VerificationError,
} from './index.ts';

// Test vectors of Google's RFC 6962 / RFC 9162 implementation, values only: repository
// transparency-dev/merkle, file proof/verify_test.go (commit 02194e9afb6c1d95b5381350007963aa70fff472),
// the same tree as certificate-transparency-go's merkle tests.
const hex = (text: string) => Buffer.from(text, 'hex');
const leaves = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(hex);
const roots = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
].map(hex);
// { leaf: 1-based index, size, proof }
const inclusionVectors = [
  { leaf: 1, size: 1, proof: [] },
  {
    leaf: 1,
    size: 8,
    proof: [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  },
  {
    leaf: 6,
    size: 8,
    proof: [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
  { leaf: 3, size: 3, proof: ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125'] },
  {
    leaf: 2,
    size: 5,
    proof: [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  },
];
const consistencyVectors = [
  { size1: 1, size2: 1, proof: [] },
  {
    size1: 1,
    size2: 8,
    proof: [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  },
  {
    size1: 6,
    size2: 8,
    proof: [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
  {
    size1: 2,
    size2: 5,
    proof: ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b'],
  },
  {
    size1: 6,
    size2: 7,
    proof: [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
];
const someHash = hex('abacaba000000000000000000000000000000000000000000060061e00123456');
const emptyTreeHash = hex('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');

function fails(action: () => void): boolean {
  try {
    action();
    return false;
  } catch (error) {
    if (error instanceof VerificationError || error instanceof RangeError) return true;
    throw error;
  }
}

const flipped = (proof: Buffer[], i: number, bit: number) => proof.map((h, j) => (j === i ? Buffer.from(h.map((b, k) => (k === 0 ? b ^ bit : b))) : h));

describe('transparency: RFC 9162 Merkle tree against the reference test vectors', () => {
  const tree = MemoryTree.fromLeaves(leaves);

  it('computes the root of every prefix of the 8-leaf tree, and of the empty tree', () => {
    for (let size = 1; size <= 8; size++) {
      expect(tree.root(size).toString('hex'), `size ${size}`).to.equal(roots[size - 1]!.toString('hex'));
      expect(rootOfLeafHashes(leaves.slice(0, size).map(leafHash)).toString('hex')).to.equal(roots[size - 1]!.toString('hex'));
    }
    expect(emptyRoot().toString('hex')).to.equal(emptyTreeHash.toString('hex'));
    expect(new MemoryTree().root().toString('hex')).to.equal(emptyTreeHash.toString('hex'));
  });

  for (const vector of inclusionVectors) {
    it(`produces and verifies the inclusion proof of leaf ${vector.leaf - 1} in a tree of ${vector.size}, and rejects every corruption`, () => {
      const index = vector.leaf - 1;
      const proof = inclusionProof(tree, index, vector.size);
      expect(proof.map((h) => h.toString('hex'))).to.deep.equal(vector.proof);
      const root = roots[vector.size - 1]!;
      const leaf = leafHash(leaves[index]!);
      verifyInclusion(index, vector.size, leaf, proof, root);
      const probes: Array<[string, () => void]> = [
        ['index - 1', () => verifyInclusion(index - 1, vector.size, leaf, proof, root)],
        ['index + 1', () => verifyInclusion(index + 1, vector.size, leaf, proof, root)],
        ['index ^ 2', () => verifyInclusion(index ^ 2, vector.size, leaf, proof, root)],
        ['size * 2', () => verifyInclusion(index, vector.size * 2, leaf, proof, root)],
        ['size / 2', () => verifyInclusion(index, Math.floor(vector.size / 2), leaf, proof, root)],
        ['wrong leaf', () => verifyInclusion(index, vector.size, leafHash(Buffer.from('WrongLeaf')), proof, root)],
        ['empty root', () => verifyInclusion(index, vector.size, leaf, proof, emptyTreeHash)],
        ['random root', () => verifyInclusion(index, vector.size, leaf, proof, someHash)],
        ['trailing garbage', () => verifyInclusion(index, vector.size, leaf, [...proof, Buffer.alloc(0)], root)],
        ['trailing root', () => verifyInclusion(index, vector.size, leaf, [...proof, root], root)],
        ['preceding garbage', () => verifyInclusion(index, vector.size, leaf, [Buffer.alloc(0), ...proof], root)],
        ['preceding root', () => verifyInclusion(index, vector.size, leaf, [root, ...proof], root)],
        ...proof.map((_, i): [string, () => void] => [`proof[${i}] bit 3`, () => verifyInclusion(index, vector.size, leaf, flipped(proof, i, 8), root)]),
        ...(proof.length > 0 ? [['removed component', () => verifyInclusion(index, vector.size, leaf, proof.slice(0, -1), root)] as [string, () => void]] : []),
        ...(proof.length > 1
          ? [['inserted component', () => verifyInclusion(index, vector.size, leaf, [proof[0]!, someHash, ...proof.slice(1)], root)] as [string, () => void]]
          : []),
      ];
      const accepted = probes.filter(([, probe]) => !fails(probe)).map(([name]) => name);
      expect(accepted, 'corruptions that verified').to.deep.equal([]);
    });
  }

  for (const vector of consistencyVectors) {
    it(`produces and verifies the consistency proof from ${vector.size1} to ${vector.size2}, and rejects every corruption`, () => {
      const { size1, size2 } = vector;
      const proof = consistencyProof(tree, size1, size2);
      expect(proof.map((h) => h.toString('hex'))).to.deep.equal(vector.proof);
      const root1 = roots[size1 - 1]!;
      const root2 = roots[size2 - 1]!;
      verifyConsistency(size1, size2, root1, root2, proof);
      if (proof.length === 0) return;
      const wrongRoot = leafHash(Buffer.from('WrongRoot'));
      const probes: Array<[string, () => void]> = [
        ['size1 - 1', () => verifyConsistency(size1 - 1, size2, root1, root2, proof)],
        ['size1 + 1', () => verifyConsistency(size1 + 1, size2, root1, root2, proof)],
        ['size1 ^ 2', () => verifyConsistency(size1 ^ 2, size2, root1, root2, proof)],
        ['size2 * 2', () => verifyConsistency(size1, size2 * 2, root1, root2, proof)],
        ['size2 / 2', () => verifyConsistency(size1, Math.floor(size2 / 2), root1, root2, proof)],
        ['wrong root1', () => verifyConsistency(size1, size2, wrongRoot, root2, proof)],
        ['wrong root2', () => verifyConsistency(size1, size2, root1, wrongRoot, proof)],
        ['swapped roots', () => verifyConsistency(size1, size2, root2, root1, proof)],
        ['empty proof', () => verifyConsistency(size1, size2, root1, root2, [])],
        ['trailing garbage', () => verifyConsistency(size1, size2, root1, root2, [...proof, Buffer.alloc(0)])],
        ['trailing root1', () => verifyConsistency(size1, size2, root1, root2, [...proof, root1])],
        ['trailing root2', () => verifyConsistency(size1, size2, root1, root2, [...proof, root2])],
        ['preceding garbage', () => verifyConsistency(size1, size2, root1, root2, [Buffer.alloc(0), ...proof])],
        ['preceding root1', () => verifyConsistency(size1, size2, root1, root2, [root1, ...proof])],
        ['preceding root2', () => verifyConsistency(size1, size2, root1, root2, [root2, ...proof])],
        ['preceding proof[0]', () => verifyConsistency(size1, size2, root1, root2, [proof[0]!, ...proof])],
        ['truncated proof', () => verifyConsistency(size1, size2, root1, root2, proof.slice(0, -1))],
        ...proof.map((_, i): [string, () => void] => [`proof[${i}] bit 4`, () => verifyConsistency(size1, size2, root1, root2, flipped(proof, i, 16))]),
      ];
      const accepted = probes.filter(([, probe]) => !fails(probe)).map(([name]) => name);
      expect(accepted, 'corruptions that verified').to.deep.equal([]);
    });
  }

  it('decides the edge cases of consistency as the reference does', () => {
    const r1 = leafHash(Buffer.from("don't care 1"));
    const r2 = leafHash(Buffer.from("don't care 2"));
    const cases: Array<[number, number, Buffer, Buffer, Buffer[], boolean]> = [
      [0, 0, r1, r2, [], false],
      [1, 1, r1, r2, [], false],
      [0, 0, r1, r1, [], true],
      [0, 1, r1, r2, [], true],
      [1, 1, r2, r2, [], true],
      [1, 0, r1, r2, [], false],
      [2, 1, r1, r2, [], false],
      [1, 2, r1, r2, [], false],
      [0, 0, emptyTreeHash, r2, [], false],
      [1, 1, emptyTreeHash, r2, [], false],
      [0, 0, emptyTreeHash, emptyTreeHash, [emptyTreeHash], false],
      [0, 1, emptyTreeHash, emptyTreeHash, [emptyTreeHash], false],
      [1, 1, emptyTreeHash, emptyTreeHash, [emptyTreeHash], false],
    ];
    for (const [size1, size2, root1, root2, proof, ok] of cases) {
      expect(!fails(() => verifyConsistency(size1, size2, root1, root2, proof)), `${size1} → ${size2}`).to.equal(ok);
    }
  });

  it('rejects inclusion for impossible indexes and sizes, and names why', () => {
    for (const [index, size] of [
      [0, 0],
      [1, 0],
      [2, 1],
    ] as const) {
      expect(
        fails(() => verifyInclusion(index, size, someHash, [], emptyTreeHash)),
        `${index} of ${size}`,
      ).to.equal(true);
    }
    const error = (() => {
      try {
        verifyInclusion(3, 3, someHash, [], someHash);
      } catch (e) {
        return e as VerificationError;
      }
    })();
    expect(error?.reason).to.equal('index-out-of-range');
    const leaf = leafHash(Buffer.from('data'));
    verifyInclusion(0, 1, leaf, [], leaf);
    expect(fails(() => verifyInclusion(0, 1, leaf, [], Buffer.alloc(0)))).to.equal(true);
    expect(fails(() => verifyInclusion(0, 1, Buffer.alloc(0), [], leaf))).to.equal(true);
  });
});
