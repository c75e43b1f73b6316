/**
 * Debian's nginx as an HTTPS reverse proxy on loopback, in front of a server: a self-signed
 * certificate made with openssl for 127.0.0.1, and the configuration docs/scaling.md gives
 * (Host, X-Forwarded-Proto, X-Forwarded-Host, X-Forwarded-For). Its files live in a temporary
 * folder; nothing of the machine's nginx is used. scripts/ensure-nginx.sh installs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from './processes.ts';

export const nginxPath = process.env.TRAILPROOF_NGINX ?? '/usr/sbin/nginx';

export interface NginxProxy {
  /** `https://127.0.0.1:PORT`. */
  url: string;
  stop(): Promise<void>;
}

/** The proxy's `location` block, as docs/scaling.md shows it. */
const location = (upstream: string) => `
    location / {
      proxy_pass ${upstream};
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      client_max_body_size 0;
    }`;

/** Starts nginx on a free loopback port, proxying to `upstream` (`http://127.0.0.1:PORT`). */
export async function startNginxProxy(upstream: string): Promise<NginxProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-nginx-'));
  const made = await runProcess('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
    ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
  ]);
  if (made.status !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr}`);
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));
  // A port another process takes between our probe and nginx's bind: try another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const conf = join(dir, 'nginx.conf');
    writeFileSync(
      conf,
      `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  ${['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t === 'body' ? 'client_body' : t}_temp_path ${dir}/${t};`).join('\n  ')}
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
${location(upstream)}
  }
}
`,
    );
    const child = spawn(nginxPath, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const listening = await untilListening(port, exited);
    if (listening) {
      return {
        url: `https://127.0.0.1:${port}`,
        stop: async () => {
          await stopChild(child, exited);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
    if (attempt >= 3 || !/Address already in use/.test(log)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start: ${log}`);
    }
  }
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** True once `port` accepts a connection, false if nginx exits first (within 30 s of a loaded machine). */
async function untilListening(port: number, exited: Promise<number | null>): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 30_000;
  while (!gone && Date.now() < deadline) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (accepted && !gone) return true;
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20))]);
  }
  return false;
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await exited;
}
