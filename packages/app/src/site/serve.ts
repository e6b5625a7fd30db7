// `evals view SITE`: serves a published site on loopback (127.0.0.1 only), read-only, with node:http
// (issue 19). GET and HEAD only; a path is decoded once and must stay inside SITE: a `..` segment, a
// backslash, NUL, an encoded separator or a symbolic link anywhere on the way is refused (403), a
// folder serves its index.html and is never listed, anything else that is not a regular file is 404.
// Only a folder publish wrote is served (its four root files there, regular files), and in it only
// those root files and what is under campaigns/: anything else beside them is 404.
// Every response carries the site's Content-Security-Policy (no fetch, only our script by its
// sha256), nosniff and no-referrer, and a content type by extension. A request whose Host is not
// this server's loopback address (127.0.0.1 or localhost, with its port) is refused (421): a web page
// elsewhere that points its own name at 127.0.0.1 (DNS rebinding) cannot read a private site through
// the browser. A file asked for as a folder (`index.html/`) is 404, as a file system answers it.
import { lstat, realpath } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join } from 'node:path';
import { Readable } from 'node:stream';

import { SITE_CSP, siteScriptHashes } from '@paperclip-evals/evalbook';
import { regularFileChunks } from '@paperclip-evals/node';

import type { IncomingMessage, Server, ServerResponse } from 'node:http';

import { AppError } from '../errors.js';
import { CAMPAIGNS, ROOT_FILES } from './site-files.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

export interface ViewRequest {
  readonly site: string;
  /** 0 (the default): any free port. */
  readonly port?: number;
}

export interface ServedSite {
  readonly url: string;
  readonly close: () => Promise<void>;
}

/** The CSP header: the pages' own, with the report's script allowed by its sha256. */
export function siteCspHeader(): string {
  const scripts = siteScriptHashes()
    .map((hash) => `'sha256-${hash}'`)
    .join(' ');
  return SITE_CSP.replace("default-src 'none';", `default-src 'none'; script-src ${scripts};`);
}

export async function serveSite(request: ViewRequest): Promise<ServedSite> {
  const root = await realpath(request.site).catch(() => null);
  const stat = root === null ? null : await lstat(root);
  if (root === null || stat === null || !stat.isDirectory())
    throw new AppError('paperclip_app_input_invalid', `${request.site} is not a site folder`, [
      {
        code: 'site_not_a_folder',
        message: `${request.site} is not a folder`,
        path: request.site,
        expected: 'a folder evals publish wrote',
        received: root === null ? 'nothing there' : 'a file',
      },
    ]);
  const missing: string[] = [];
  for (const name of ROOT_FILES) {
    const file = await lstat(join(root, name)).catch(() => null);
    if (file === null || !file.isFile()) missing.push(name);
  }
  if (missing.length > 0)
    throw new AppError('paperclip_app_input_invalid', `${request.site} is not a published site`, [
      {
        code: 'site_not_published',
        message: `${request.site} has no ${missing.join(', ')}: it is not a folder evals publish wrote`,
        path: request.site,
        expected: `a folder evals publish wrote (${ROOT_FILES.join(', ')} and ${CAMPAIGNS}/)`,
        received: `a folder without ${missing.join(', ')}`,
      },
    ]);
  const csp = siteCspHeader();
  const hosts = new Set<string>();
  const server: Server = createServer((req, res) => {
    void respond(root, csp, hosts, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(listenError(error, request.port ?? 0));
    });
    server.listen(request.port ?? 0, '127.0.0.1', () => {
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  for (const name of ['127.0.0.1', 'localhost']) hosts.add(`${name}:${port}`);
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** What a port that cannot be listened on means, and what to do: a coded request error (never a file error). */
const LISTEN_FAILURES: Readonly<Record<string, { readonly code: string; readonly why: string }>> = {
  EADDRINUSE: { code: 'port_in_use', why: 'another process listens there' },
  EACCES: {
    code: 'port_not_permitted',
    why: 'this user may not listen on it (ports below 1024 need privileges)',
  },
  EADDRNOTAVAIL: { code: 'port_unavailable', why: '127.0.0.1 is not available on this machine' },
};

function listenError(error: NodeJS.ErrnoException, port: number): AppError {
  const known = LISTEN_FAILURES[error.code ?? ''];
  const received = `${error.code ?? 'error'} (${error.syscall ?? 'listen'})`;
  const fix = 'give another --port, or leave --port out for a free one';
  return new AppError(
    'paperclip_app_request_invalid',
    `port ${port} on 127.0.0.1 cannot be listened on: ${known?.why ?? error.message} (${error.code ?? 'error'}); ${fix}`,
    [
      {
        code: known?.code ?? 'port_listen_failed',
        component: '--port',
        message: `${known?.why ?? error.message}: ${fix}`,
        expected: 'a free port on 127.0.0.1',
        received: `port ${port}: ${received}`,
      },
    ],
    { cause: error },
  );
}

function send(res: ServerResponse, csp: string, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
  });
  res.end(`${text}\n`);
}

async function respond(
  root: string,
  csp: string,
  hosts: ReadonlySet<string>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    if (!hosts.has((req.headers.host ?? '').toLowerCase())) {
      send(res, csp, 421, `refused: this server answers only to ${[...hosts].join(' or ')}`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, csp, 405, 'read-only: GET and HEAD only');
      return;
    }
    const raw = (req.url ?? '/').replace(/[?#].*$/, '');
    let path: string;
    try {
      path = decodeURIComponent(raw);
    } catch {
      send(res, csp, 400, 'a malformed path');
      return;
    }
    const segments = path.split('/').filter((segment) => segment !== '');
    if (
      !raw.startsWith('/') ||
      /%2f|%5c/i.test(raw) ||
      path.includes('\\') ||
      path.includes('\0') ||
      segments.some((segment) => segment === '..' || segment === '.')
    ) {
      send(res, csp, 403, 'refused: the path leaves the site');
      return;
    }
    // The site is its root files and its campaigns: nothing else in the folder is served.
    const first = segments[0];
    if (
      first !== undefined &&
      first !== CAMPAIGNS &&
      !(segments.length === 1 && (ROOT_FILES as readonly string[]).includes(first))
    ) {
      send(res, csp, 404, 'not found (not a file of the site)');
      return;
    }
    // Every step on the way is lstat'ed: a symbolic link is refused wherever it is.
    let at = root;
    for (const segment of segments) {
      at = join(at, segment);
      const stat = await lstat(at).catch(() => null);
      if (stat === null) {
        send(res, csp, 404, 'not found');
        return;
      }
      if (stat.isSymbolicLink()) {
        send(res, csp, 403, 'refused: a symbolic link');
        return;
      }
    }
    let file = at;
    const stat = await lstat(file);
    if (stat.isDirectory()) {
      // A folder's page links relatively (`tests/…`, `../index.html`): served from `/campaigns/<id>`
      // (no trailing slash) every one of them would resolve one level up and 404, so redirect.
      if (!raw.endsWith('/')) {
        res.writeHead(301, {
          location: `${raw}/`,
          'content-security-policy': csp,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        });
        res.end();
        return;
      }
      file = join(file, 'index.html');
      const index = await lstat(file).catch(() => null);
      if (index === null || index.isSymbolicLink() || !index.isFile()) {
        send(res, csp, 404, 'not found (folders are not listed)');
        return;
      }
    } else if (!stat.isFile() || raw.endsWith('/')) {
      send(res, csp, 404, 'not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    // node's one streaming reader: a FIFO or device swapped in since the lstat is refused, never waited on.
    Readable.from(regularFileChunks(file))
      .on('error', () => res.destroy())
      .pipe(res);
  } catch {
    if (!res.headersSent) send(res, csp, 500, 'internal error');
    else res.destroy();
  }
}
