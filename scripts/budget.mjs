// Page budget, reported (not asserted): bytes the page downloads (raw and gzipped) and the
// time from navigation to the first complete result in headless Chromium.
// Run after scripts/build-web.sh:  node scripts/budget.mjs
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { serve } from '../tests/web/server.mjs';
import { launch } from '../tests/web/browser.mjs';

const dist = join(fileURLToPath(new URL('..', import.meta.url)), 'web', 'dist');
const server = await serve(dist);
const browser = await launch();
const runs = [];
let files = [];
for (let i = 0; i < 5; i += 1) {
  const context = await browser.newContext();
  const page = await context.newPage();
  // Records the moment the page first declares a complete result.
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('#status[data-state="ready"]')) {
        window.__firstResultMs = performance.now();
        observer.disconnect();
      }
    }).observe(document, { subtree: true, attributes: true, childList: true });
  });
  const responses = [];
  page.on('response', async (res) => {
    try {
      responses.push({ url: res.url(), body: await res.body() });
    } catch {
      /* redirects have no body */
    }
  });
  await page.goto(server.url);
  await page.waitForSelector('#status[data-state="ready"]');
  runs.push(await page.evaluate(() => window.__firstResultMs));
  files = responses;
  await context.close();
}
await browser.close();
await server.close();

let raw = 0;
let gz = 0;
for (const f of files) {
  const z = gzipSync(f.body, { level: 9 }).length;
  raw += f.body.length;
  gz += z;
  console.log(`${f.url.replace(server.url, '/').padEnd(34)} ${String(f.body.length).padStart(8)} B  ${String(z).padStart(7)} B gzipped`);
}
runs.sort((a, b) => a - b);
console.log(`total downloaded: ${(raw / 1024).toFixed(1)} KiB, ${(gz / 1024).toFixed(1)} KiB gzipped (budget 250 KB)`);
console.log(`navigation to first complete result: median ${runs[2].toFixed(0)} ms, best ${runs[0].toFixed(0)} ms over 5 loads (budget 300 ms)`);
