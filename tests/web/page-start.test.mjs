// How the page starts (page budget, README.md): the worker prepares the default plan's answer while the page's
// modules load, and the page uses it only for that plan; no Intl.NumberFormat on the way to the first result;
// the form and the sections below wait for the first verdict to be on screen, and still come in browsers that
// do not say when it is (no Element Timing: Firefox, Safari).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, open, useBrowser } from './harness.mjs';

const env = useBrowser();

// Records every answer the engine's worker sends the page: {id, prepared, result} (init script).
function recordAnswers() {
  window.__answers = [];
  const Native = window.Worker;
  window.Worker = function Worker(...args) {
    const worker = new Native(...args);
    worker.addEventListener('message', ({ data }) => window.__answers.push({ id: data.id, prepared: data.prepared === true, result: data.result }));
    return worker;
  };
  window.Worker.prototype = Native.prototype;
}

// The first answer that is a report (the first evaluation; init answers {version, presets}).
const firstReport = (page) => page.evaluate(() => window.__answers.find((a) => typeof a.result === 'string' && a.result.startsWith('{"ok"')));

test('a page opened without a link shows the answer the worker prepared for its default plan; a link is evaluated afresh', async () => {
  const plain = await open(env, '', { init: recordAnswers });
  const prepared = await firstReport(plain);
  assert.equal(prepared.prepared, true, 'the first answer of a page without a link is the prepared one');
  await close(plain);
  // The same plan from a link (v=2 with nothing changed: the defaults): evaluated when the page asks, the same report.
  const linked = await open(env, '#v=2', { init: recordAnswers });
  const fresh = await firstReport(linked);
  assert.equal(fresh.prepared, false, 'a page with a link does not take the prepared answer');
  assert.equal(fresh.result, prepared.result);
  // Later answers are never the prepared one, even for the default plan again.
  await linked.fill('#f-parallel-tp', '8');
  await linked.waitForFunction(() => window.__answers.filter((a) => typeof a.result === 'string' && a.result.startsWith('{"ok"')).length >= 2);
  assert.ok((await linked.evaluate(() => window.__answers.every((a) => !a.prepared))));
  await close(linked);
});

test('no Intl.NumberFormat is made on the way to the first result (its first use costs ~20 ms of the main thread)', async () => {
  const page = await open(env, '', {
    init: () => {
      window.__intlMade = 0;
      const Native = Intl.NumberFormat;
      Intl.NumberFormat = new Proxy(Native, { construct: (target, args) => (window.__intlMade += 1, new target(...args)), apply: (target, self, args) => (window.__intlMade += 1, target(...args)) });
      const toLocale = Number.prototype.toLocaleString;
      Number.prototype.toLocaleString = function (...args) { window.__intlMade += 1; return toLocale.apply(this, args); };
    },
  });
  assert.equal(await page.evaluate(() => window.__intlMade), 0);
  assert.match(await page.textContent('#summary'), /\d/); // numbers were formatted all the same
  await close(page);
});

test('the form and the sections below come after the first verdict is on screen, and without Element Timing too', async () => {
  const page = await open(env, '', {
    init: () => {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.identifier === 'result') window.__verdictPainted ??= e.renderTime;
      }).observe({ type: 'element', buffered: true });
      new MutationObserver(() => {
        if (document.querySelector('#inputs[data-form="built"]')) window.__formBuilt ??= performance.now();
      }).observe(document, { subtree: true, attributeFilter: ['data-form'] });
    },
  });
  const [painted, built] = await page.evaluate(() => [window.__verdictPainted, window.__formBuilt]);
  assert.ok(painted > 0 && built > painted, `verdict painted at ${painted} ms, form built at ${built} ms`);
  await close(page);
  // A browser without Element Timing: open() waits for the form and the sections below, which must come.
  const plain = await open(env, '', {
    init: () => Object.defineProperty(PerformanceObserver, 'supportedEntryTypes', { get: () => ['mark', 'measure', 'navigation', 'paint', 'resource'] }),
  });
  assert.equal(await plain.getAttribute('#inputs', 'data-form'), 'built');
  assert.equal(await plain.getAttribute('#results', 'data-below'), 'drawn');
  await close(plain);
});
