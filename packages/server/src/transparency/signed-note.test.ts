import { expect } from 'chai';
import fc from 'fast-check';
import { generateNoteKey, openNote, parseNote, parseSignerKey, parseVerifierKey, signNote, verificationOutcome } from './index.ts';

// Go's note package examples, values only: repository golang/mod, file sumdb/note/note_test.go.
const peterKey = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const peterSigner = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const enochKey = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const text = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const peterSig = '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const enochSig = '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';

// Go's byte slicing, for the examples that cut a signature line at a byte offset.
const spliceBytes = (line: string, at: number, insert: string) => {
  const bytes = Buffer.from(line);
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(insert), bytes.subarray(at)]).toString();
};

describe('transparency: C2SP signed notes and Go note keys', () => {
  it("reads Go's example keys, derives the verifier key from the signer key, and signs as Go does, byte for byte", () => {
    const verifier = parseVerifierKey(peterKey);
    expect(verifier.name).to.equal('PeterNeumann');
    expect(verifier.keyHash).to.equal(0xc74f20a3);
    const signer = parseSignerKey(peterSigner);
    expect(signer.verifierKey).to.equal(peterKey);
    expect(signNote(text, signer)).to.equal(`${text}\n${peterSig}`);
  });

  it("opens Go's example notes: the verifier's signature checked, other keys' signatures kept unverified", () => {
    const note = openNote(`${text}\n${peterSig}${enochSig}`, parseVerifierKey(peterKey));
    expect(note.text).to.equal(text);
    expect(note.signatures.map((s) => [s.name, s.keyHash])).to.deep.equal([
      ['PeterNeumann', 0xc74f20a3],
      ['EnochRoot', 0xaf0cfe78],
    ]);
    expect(openNote(Buffer.from(`${text}\n${peterSig}${enochSig}`), parseVerifierKey(enochKey)).text).to.equal(text);
  });

  it("rejects Go's malformed notes, wrong keys and bad signatures, naming each", () => {
    const peter = parseVerifierKey(peterKey);
    const malformed = [
      text,
      `${text}\n`,
      `${text}\n${peterSig.slice(0, -1)}`,
      `\x01${text}\n${peterSig}`,
      `${text}\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=`,
      `${text}\n${peterSig}Unexpected line.\n`,
      `${text}\n${peterSig.repeat(101)}`,
      `${text}\n${peterSig.replace('AM=', 'AN=')}`, // non-canonical base64: stray low bits
      `${text}\n${peterSig.replace(' x08go', '  x08go')}`,
    ];
    for (const message of malformed)
      expect(
        verificationOutcome(() => openNote(message, peter)),
        JSON.stringify(message),
      ).to.equal('malformed-note');
    expect(verificationOutcome(() => openNote(Buffer.concat([Buffer.from([0xff]), Buffer.from(`${text}\n${peterSig}`)]), peter))).to.equal('malformed-note');
    expect(verificationOutcome(() => openNote(`${text}\n${spliceBytes(peterSig, 60, 'ABCD')}`, peter))).to.equal('bad-signature');
    expect(verificationOutcome(() => openNote(`${text}\n${peterSig.replace('PeterNeumann', 'CarmenSandiego')}`, peter))).to.equal('no-signature-by-key');
    expect(verificationOutcome(() => openNote(`${text}\n${peterSig.replace('x08g', 'xxxx')}`, peter))).to.equal('no-signature-by-key');
    expect(verificationOutcome(() => openNote(`${text}\n${enochSig}`, peter))).to.equal('no-signature-by-key');
    expect(verificationOutcome(() => openNote(`${text.replace('answer', 'Answer')}\n${peterSig}`, peter))).to.equal('bad-signature');
  });

  it("rejects every mangling of Go's example keys: each substring, each changed character", () => {
    for (const [key, parse] of [
      [peterKey, parseVerifierKey],
      [peterSigner, parseSignerKey],
    ] as const) {
      for (let i = 0; i <= key.length; i++) {
        for (let j = i + 1; j <= key.length; j++) {
          if (i !== 0 || j !== key.length)
            expect(
              verificationOutcome(() => parse(key.slice(i, j))),
              key.slice(i, j),
            ).to.equal('malformed-key');
        }
      }
      for (let i = 0; i < key.length; i++) {
        const mangled = key.slice(0, i) + String.fromCharCode(key.charCodeAt(i) + 1) + key.slice(i + 1);
        expect(
          verificationOutcome(() => parse(mangled)),
          mangled,
        ).to.equal('malformed-key');
      }
    }
    expect(verificationOutcome(() => parseVerifierKey('PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=='))).to.equal('malformed-key');
    expect(verificationOutcome(() => parseVerifierKey('PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'))).to.equal('malformed-key');
    expect(verificationOutcome(() => parseVerifierKey(peterKey.replace('c74f20a3', 'C74F20A3')))).to.equal('malformed-key');
  });

  it('generates keys whose signatures verify, and fail on any changed byte of the signed note', () => {
    const { signerKey, verifierKey } = generateNoteKey('trailproof.example.com');
    expect(verifierKey).to.match(/^trailproof\.example\.com\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
    expect(signerKey).to.match(/^PRIVATE\+KEY\+trailproof\.example\.com\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
    const signer = parseSignerKey(signerKey);
    const verifier = parseVerifierKey(verifierKey);
    expect(signer.verifierKey).to.equal(verifierKey);
    const signed = Buffer.from(signNote('trailproof.example.com/acme\n3\nAAAA\n', signer));
    expect(openNote(signed, verifier).text).to.equal('trailproof.example.com/acme\n3\nAAAA\n');
    fc.assert(
      fc.property(fc.nat({ max: signed.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, delta) => {
        const changed = Buffer.from(signed);
        changed[at] = (changed[at]! + delta) % 256;
        expect(verificationOutcome(() => openNote(changed, verifier))).to.not.equal('verified');
      }),
      { numRuns: 500 },
    );
    expect(verificationOutcome(() => openNote(signed, parseVerifierKey(generateNoteKey('trailproof.example.com').verifierKey)))).to.equal(
      'no-signature-by-key',
    );
  });

  it('refuses to sign text that would not open, and key names Go would refuse', () => {
    const signer = parseSignerKey(peterSigner);
    expect(verificationOutcome(() => signNote('no final newline', signer))).to.equal('malformed-note');
    expect(verificationOutcome(() => signNote('tab\there\n', signer))).to.equal('malformed-note');
    for (const name of ['', 'a b', 'a+b', 'a\u00a0b']) expect(() => generateNoteKey(name), JSON.stringify(name)).to.throw(RangeError);
    expect(parseNote(`${text}\n${peterSig}`).signatures).to.have.length(1);
  });
});
