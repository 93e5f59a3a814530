// A static file server for web/dist on 127.0.0.1 (tests and the budget script). It records every
// path it serves so tests can see what the page downloaded. Like scripts/serve.py, it sends each
// page's Content-Security-Policy (its <meta http-equiv> element) as a header too, and index.html's
// with every other file, so that the engine's worker (which does not inherit the page's meta
// policy) runs under it as well.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const policyOf = (html) => /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];

export async function serve(dir) {
  const served = [];
  const sitePolicy = policyOf(await readFile(join(dir, 'index.html'), 'utf8').catch(() => ''));
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path.endsWith('/') ? `${path}index.html` : path);
    try {
      const body = await readFile(file);
      served.push(path);
      const policy = extname(file) === '.html' ? policyOf(body.toString('utf8')) : sitePolicy;
      res.writeHead(200, {
        'content-type': types[extname(file)] || 'application/octet-stream',
        ...(policy ? { 'content-security-policy': policy } : {}),
      });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, served, close: () => new Promise((r) => server.close(r)) };
}
