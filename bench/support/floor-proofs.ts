/**
 * The proofs' floor: a bare `node:http` server answering the inclusion and consistency proofs of
 * organisation `bench` from the same SQLite file with the server's own reads and the same JSON
 * (proof-answers.ts), and nothing else: no Koa, router, token, validation, metrics or request log.
 * What a proof costs over HTTP on this machine at the least; the server's figures are read against it.
 *
 *   node --import tsx bench/support/floor-proofs.ts FILE
 *
 * Prints {"msg":"listening","url":...}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, openProofAnswers } from './proof-answers.ts';

const answers = openProofAnswers(process.argv[2]!);

function answer(url: URL): Promise<string> | null {
  const number = (name: string) => Number(url.searchParams.get(name));
  if (url.pathname.endsWith('/proof/inclusion')) return answers.inclusion(number('index'), number('tree_size'));
  if (url.pathname.endsWith('/proof/consistency')) return answers.consistency(number('from'), number('to'));
  return null;
}

const json = 'application/json; charset=utf-8';
const server = createServer((req, res) => {
  const answered = answer(new URL(req.url!, 'http://floor'));
  if (!answered) {
    res.writeHead(404, { 'content-type': json }).end('{"message":"No such route"}');
    return;
  }
  // Headers as one literal, as the floor had them: a spread per answer is work the floor should not add.
  answered.then(
    (body) => res.writeHead(200, { 'content-type': json, 'content-length': Buffer.byteLength(body) }).end(body),
    (error: unknown) => res.writeHead(500).end(String(error)),
  );
});
server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
process.once('SIGTERM', () => server.close(() => answers.close()));
