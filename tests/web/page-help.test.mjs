// Field help and the docs pages in real Chromium: every input of the form has a "?" that keyboard and
// touch can open, showing its help and a link that lands on an existing section of the rendered docs
// (web/dist/docs, hosted and from the single-file build); the header's "How it works" link; the
// config.json import just under the model preset. Fails on console errors, CSP violations and foreign
// requests, on the calculator and on the docs pages. Screenshots: artifacts/screenshots/help-*.png.
// Needs web/dist (node web/build.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { DESKTOP, PHONE, close, dist, open, shots, useBrowser } from './harness.mjs';
import { FIELDS, SECTIONS, loadHelp } from '../../web/src/js/fields.js';

await loadHelp(); // the catalogue's help and doc anchors (a chunk of their own on the page)

// Every page a calculator opens is watched too: the docs pages it links to.
const env = useBrowser({ everyPage: true });

// The inputs the form builds, in form order, and the docs URL each help links to.
const INPUTS = ['framework', ...SECTIONS.flatMap((s) => s.fields.map((f) => `${s.id}.${f.key}`))];
const docUrl = (path) => `docs/${FIELDS.get(path).doc.replace('.md#', '.html#')}`;
const inputId = (path) => `f-${path.replaceAll('.', '-')}`;

const openAllMore = (page) => page.$$eval('#scenario-form details.more', (ds) => ds.forEach((d) => { d.open = true; }));
const toggleOf = (path) => `[data-field="${path}"] .help-toggle`;
const panelOf = (path) => `#${inputId(path)}-help`;

// The section the docs page shows at the top of the window, and that it has that id.
async function expectAnchor(page, url) {
  const id = decodeURIComponent(new URL(url).hash.slice(1));
  await page.waitForLoadState('load');
  const box = await page.evaluate((i) => {
    const el = document.getElementById(i);
    return el && { top: el.getBoundingClientRect().top, heading: /^H[1-6]$/.test(el.tagName) };
  }, id);
  assert.ok(box, `${url}: no element with id "${id}"`);
  assert.ok(box.heading, `${url}: #${id} is not a heading`);
  assert.ok(box.top >= -2 && box.top < 200, `${url}: #${id} is not scrolled into view (top ${box.top})`);
}

test('every input has a "?" button that shows its help and a docs link', async () => {
  const page = await open(env);
  // The help text is a chunk the page fetches on first use, not before its first result.
  const helpFetched = () => page.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/field-help\.js$/.test(e.name)));
  assert.equal(await helpFetched(), false, 'no help fetched by opening the page');
  await openAllMore(page);
  const shown = await page.$$eval('#scenario-form [data-path]', (els) => els.map((e) => e.dataset.path));
  assert.deepEqual([...shown].sort(), [...INPUTS].sort(), 'the form has the catalogue’s inputs');
  for (const path of INPUTS) {
    const spec = FIELDS.get(path);
    const button = page.locator(toggleOf(path));
    assert.equal(await button.count(), 1, `${path}: one "?"`);
    const attrs = await button.evaluate((b) => ({
      tag: b.tagName, type: b.type, tabIndex: b.tabIndex, expanded: b.getAttribute('aria-expanded'),
      controls: b.getAttribute('aria-controls'), name: b.getAttribute('aria-label'),
    }));
    assert.deepEqual(attrs, { tag: 'BUTTON', type: 'button', tabIndex: -1, expanded: 'false', controls: `${inputId(path)}-help`, name: `Help: ${spec.label}` }, path);
    assert.equal(await page.isVisible(panelOf(path)), false, `${path}: help closed at first`);
    await button.click();
    await page.waitForSelector(panelOf(path), { state: 'visible', timeout: 5000 }); // the first one waits for the chunk
    assert.equal(await helpFetched(), true);
    assert.equal(await button.getAttribute('aria-expanded'), 'true', `${path}: aria-expanded`);
    assert.equal(await page.isVisible(panelOf(path)), true, `${path}: help shown`);
    const text = await page.textContent(panelOf(path));
    assert.ok(text.startsWith(spec.help), `${path}: the help text of the catalogue (${text})`);
    const link = page.locator(`${panelOf(path)} a`);
    assert.equal(await link.getAttribute('href'), docUrl(path), `${path}: link to the docs section`);
    assert.equal(await link.isVisible(), true, `${path}: link visible`);
    await button.click();
    assert.equal(await page.isVisible(panelOf(path)), false, `${path}: closed again`);
  }
  // A help stays inside the sidebar, and an open one widens its field to the whole row.
  await page.click(toggleOf('training.micro_batch'));
  const widths = await page.evaluate(() => {
    const field = document.querySelector('[data-field="training.micro_batch"]');
    const grid = field.parentElement;
    return { field: field.getBoundingClientRect().width, grid: grid.getBoundingClientRect().width };
  });
  assert.ok(Math.abs(widths.field - widths.grid) < 2, `an open help takes the row (${widths.field} of ${widths.grid}px)`);
  await page.locator('#section-training').screenshot({ path: join(shots, 'help-field-open.png') });
  await page.screenshot({ path: join(shots, 'help-desktop.png') });
  // The calculator loads no docs page by itself.
  assert.deepEqual(env.server.served.filter((p) => p.includes('docs/')), [], 'no docs page fetched by the calculator');
  await close(page);
});

test('keyboard: Tab goes from input to input, F1 opens the help, Tab reaches the link, Escape closes and returns focus', async () => {
  const page = await open(env);
  await page.focus('#f-training-seq_len');
  await page.waitForSelector('#scenario-form[data-help="loaded"]', { state: 'attached' }); // fetched on the first focus
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'f-training-micro_batch', 'Tab lands on the next input, not a "?"');
  await page.keyboard.press('F1');
  assert.equal(await page.isVisible(panelOf('training.micro_batch')), true, 'F1 opens');
  await page.keyboard.press('Tab'); // the docs link
  assert.equal(await page.evaluate(() => document.activeElement.closest('.help')?.id), 'f-training-micro_batch-help', 'the link is reachable');
  await page.keyboard.press('Escape');
  assert.equal(await page.isVisible(panelOf('training.micro_batch')), false, 'Escape closes');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'f-training-micro_batch', 'focus back on the input');
  await page.keyboard.press('?');
  assert.equal(await page.isVisible(panelOf('training.micro_batch')), true, '"?" opens too');
  assert.equal(await page.inputValue('#f-training-micro_batch'), '1', 'without typing the "?"');
  // Checkbox fields: the "?" is not part of the label, so it does not toggle the checkbox.
  const before = await page.isChecked('#f-parallel-sp');
  await page.click(toggleOf('parallel.sp'));
  assert.equal(await page.isChecked('#f-parallel-sp'), before, 'the "?" leaves the checkbox alone');
  assert.equal(await page.isVisible(panelOf('parallel.sp')), true);
  await close(page);
});

test('touch: tapping "?" on a phone shows the help inside the screen', async () => {
  const page = await open(env, '', { viewport: PHONE, touch: true });
  await page.tap(toggleOf('model.layers'));
  await page.waitForSelector(panelOf('model.layers'), { state: 'visible', timeout: 5000 }); // a tap opens the help (its text fetched first)
  const box = await page.locator(panelOf('model.layers')).boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `the help fits the screen (${box.x} + ${box.width})`);
  const target = await page.locator(toggleOf('model.layers')).evaluate((b) => {
    const r = b.getBoundingClientRect();
    const after = getComputedStyle(b, '::after');
    return { w: r.width - 2 * parseFloat(after.left), h: r.height - 2 * parseFloat(after.top) };
  });
  assert.ok(target.w >= 24 && target.h >= 24, `the "?" is a finger-sized target (${target.w}×${target.h}px)`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal page scroll with a help open (overflow ${overflow}px)`);
  await page.locator('#section-model').screenshot({ path: join(shots, 'help-phone.png') });
  await page.locator(panelOf('model.layers')).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'help-phone-screen.png') });
  await page.tap(toggleOf('model.layers'));
  assert.equal(await page.isVisible(panelOf('model.layers')), false, 'a second tap closes it');
  await close(page);
});

test('the help link opens the docs page at its section; every anchor of the catalogue exists', async () => {
  const page = await open(env);
  await page.click(toggleOf('training.recompute'));
  const [docs] = await Promise.all([page.context().waitForEvent('page'), page.click(`${panelOf('training.recompute')} a`)]);
  await docs.waitForLoadState('load');
  assert.equal(docs.url(), env.server.url + docUrl('training.recompute'));
  await expectAnchor(docs, docs.url());
  assert.match(await docs.title(), /shardcalc docs/);
  await docs.screenshot({ path: join(shots, 'help-docs-desktop.png') });
  await docs.close();
  // Every distinct section the form links to, followed in the browser.
  for (const url of new Set(INPUTS.map(docUrl))) {
    const p = await page.context().newPage();
    await p.goto(env.server.url + url);
    await expectAnchor(p, p.url());
    await p.close();
  }
  await close(page);
});

test('the docs pages read on a phone', async () => {
  const page = await open(env, '', { viewport: PHONE, touch: true });
  const docs = await page.context().newPage();
  await docs.goto(`${env.server.url}docs/memory.html#activations-saved-for-backward`);
  await expectAnchor(docs, docs.url());
  const overflow = await docs.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `tables scroll inside themselves, not the page (overflow ${overflow}px)`);
  await docs.screenshot({ path: join(shots, 'help-docs-phone.png') });
  await docs.close();
  await close(page);
});

test('"How it works" in the header opens the methodology, and the docs lead back', async () => {
  const page = await open(env);
  const link = page.locator('header #how-it-works');
  assert.equal(await link.textContent(), 'How it works');
  await Promise.all([page.waitForURL(`${env.server.url}docs/memory.html`), link.click()]);
  assert.equal(await page.textContent('h1'), 'The memory model, term by term');
  assert.ok(await page.locator('nav.doc-toc a[href="#activations-saved-for-backward"]').count(), 'a table of contents');
  // Links between the docs pages work: the scenario reference and back.
  await Promise.all([page.waitForURL(/scenario\.html$/), page.click('.docs-top a[href="scenario.html"]')]);
  assert.equal(await page.textContent('h1'), 'Scenario input and report output');
  await Promise.all([page.waitForURL(/index\.html$/), page.click('.docs-top a.home')]);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 15000 });
  await close(page);
});

test('the config.json import sits just under the model preset, near the top', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(env, '', { viewport });
    const layout = await page.evaluate(() => {
      const block = document.getElementById('hf-config').closest('.import');
      const top = (el) => el.getBoundingClientRect().top + window.scrollY;
      return {
        inModel: block.closest('fieldset')?.id,
        after: block.previousElementSibling?.dataset.field,
        top: top(block),
        layers: top(document.querySelector('[data-field="model.layers"]')),
        training: top(document.getElementById('section-training')),
        ids: ['hf-config', 'hf-import', 'hf-import-message'].every((id) => document.getElementById(id)),
      };
    });
    assert.equal(layout.inModel, 'section-model', 'inside the Model section');
    assert.equal(layout.after, 'model.preset', 'right after the model preset');
    assert.ok(layout.top < layout.layers && layout.top < layout.training, 'above the model shape and the training fields');
    if (viewport === DESKTOP) assert.ok(layout.top < DESKTOP.height, `in the first screen on a desktop (top ${layout.top}px)`);
    assert.ok(layout.ids, 'the import keeps its ids');
    if (viewport === DESKTOP) await page.locator('#inputs').screenshot({ path: join(shots, 'help-sidebar.png') });
    await close(page);
  }
});

test('from the single-file build the help links to the docs next to it', async () => {
  const base = pathToFileURL(join(dist, 'shardcalc-standalone.html')).href;
  // Requests may go to the folder of the file (the docs next to it), nowhere else.
  const page = await open(env, '', { base, allow: new URL('.', base).href });
  await page.click(toggleOf('model.vocab'));
  const href = await page.locator(`${panelOf('model.vocab')} a`).evaluate((a) => a.href);
  assert.ok(href.startsWith(pathToFileURL(join(dist, 'docs')).href), `next to the file: ${href}`);
  assert.ok(existsSync(fileURLToPath(href.split('#')[0])), `${href} exists`);
  const docs = await page.context().newPage();
  await docs.goto(href);
  await expectAnchor(docs, href);
  await docs.close();
  await close(page);
});
