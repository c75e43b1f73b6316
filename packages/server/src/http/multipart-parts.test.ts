import { expect } from 'chai';
import { PartFraming } from './multipart-parts.ts';

/** What the framing found in `body`, fed as the given chunks. */
function frame(chunks: Buffer[], contentType = 'multipart/form-data; boundary=b') {
  const framing = new PartFraming(contentType);
  for (const chunk of chunks) framing.push(chunk);
  return { framed: framing.framed.map((p) => p.label), afterClose: framing.afterClose.map((p) => p.label) };
}

const body = Buffer.from(
  'preamble\r\n--b\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n{"a":"--b"}\r\n' +
    '--b\r\nContent-Disposition: form-data; name="attachment_file"; filename="x.bin"\r\nContent-Type: application/octet-stream\r\n\r\n\r\n--bX not a delimiter\r\n' +
    '--b\r\n\r\nno headers\r\n' +
    '--b\r\nContent-Disposition: form-data; name="empty"\r\n\r\n\r\n' +
    '--b--\r\nepilogue\r\n--b\r\nContent-Disposition: form-data; name="late"\r\n\r\nx\r\n--b--\r\n',
);
const expected = { framed: ['data_json', 'attachment_file', 'part 3', 'empty'], afterClose: ['late'] };

describe('multipart part framing', () => {
  it('frames parts as busboy does: delimiters only before CRLF or "--", an empty header block, parts after the close', () => {
    expect(frame([body])).to.deep.equal(expected);
  });

  it('frames the same wherever the body is cut into chunks', () => {
    for (let cut = 1; cut < body.length; cut++) {
      expect(frame([body.subarray(0, cut), body.subarray(cut)]), `cut at ${cut}`).to.deep.equal(expected);
    }
    expect(frame([...body].map((byte) => Buffer.from([byte]))), 'one byte at a time').to.deep.equal(expected);
  });

  it('reads a quoted boundary and a body without a preamble', () => {
    const quoted = Buffer.from('--a b\r\nContent-Disposition: form-data; name="n"\r\n\r\nv\r\n--a b--\r\n');
    expect(frame([quoted], 'multipart/form-data; boundary="a b"')).to.deep.equal({ framed: ['n'], afterClose: [] });
  });
});
