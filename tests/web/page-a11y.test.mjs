// Accessibility and layout (issue 29, point 5), in real Chromium: axe-core finds no serious or critical WCAG 2
// A/AA violation (default page at desktop and phone, light and dark; an input error; the embed); touch targets of
// at least 24 × 24 CSS px on a phone (WCAG 2.5.8); the "?" help toggles out of the Tab order, the help of the
// focused input opened by F1 or "?"; a skip link to the results; one live region carrying the answer; headings
// reached from the contents left below the sticky answer bar; an error message that moves no other field; inputs
// in the page's colours in dark mode; no sideways scroll of the document at 390 px with XLA's tables, nor at 320 px.
// Screenshots: artifacts/screenshots/a11y-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DESKTOP, PHONE, close, link, open, root, shots, useBrowser } from './harness.mjs';

const env = useBrowser();

// axe-core, injected by evaluation: the page's Content-Security-Policy refuses inline scripts.
const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
// Violations found that only another file can fix, each with the fix; an entry goes once its owner makes it. None now.
const KNOWN = [];

async function axeViolations(page) {
  await page.evaluate(AXE);
  const violations = await page.evaluate((tags) =>
    window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] }).then((r) => r.violations), WCAG);
  // One line a rule: its first nodes and how many there are.
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => {
    const nodes = v.nodes.filter((n) => !KNOWN.some((k) => k.rule === v.id && k.target.test(n.target.at(-1))));
    return nodes.length ? [`${v.id} (${v.impact}) at ${nodes.length} nodes: ${nodes.slice(0, 3)
      .map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ').slice(0, 160)}`).join(' | ')}`] : [];
  });
}

const TP_ERROR = async (page) => {
  await page.fill('#f-parallel-tp', '3');
  await page.waitForSelector('#status[data-state="error"]');
  await page.waitForSelector('.field-error[data-error-for="/parallel/tp"]');
};

// How far the document is wider than a window `width` CSS px wide (0: it does not scroll sideways).
const sideways = (page, width) => page.evaluate((w) => Math.max(0, document.documentElement.scrollWidth - w), width);

// XLA's BERT report on a TPU v3 core (tests/web/page-tpu.test.mjs): the page shows XLA's tables.
const XLA_BERT = {
  model: { preset: 'bert-base' },
  training: { seq_len: 512, micro_batch: 64, dtype: 'fp32', attention: 'eager', dropout: 0.1 },
  hardware: { preset: 'tpu-v3' },
};

test('axe-core: no serious or critical WCAG 2 A/AA violation (page light and dark at 1440 and 390 px, an input error, the embed)', async () => {
  const found = [];
  for (const viewport of [DESKTOP, PHONE]) {
    for (const colorScheme of ['light', 'dark']) {
      const page = await open(env, '', { viewport, colorScheme });
      found.push(...(await axeViolations(page)).map((v) => `${viewport.width} px ${colorScheme}: ${v}`));
      if (viewport === DESKTOP && colorScheme === 'light') {
        await TP_ERROR(page);
        await page.waitForSelector('#engine-error .fix'); // the one-click fix, offered a moment later
        found.push(...(await axeViolations(page)).map((v) => `input error: ${v}`));
      }
      await close(page);
    }
  }
  const embed = await open(env, '?embed=1');
  found.push(...(await axeViolations(embed)).map((v) => `embed: ${v}`));
  await close(embed);
  assert.deepEqual(found, []);
});

test('touch targets on a phone: every button, link, checkbox, "?" and summary in the form and the answer bar is at least 24 × 24 px', async () => {
  const page = await open(env, '', { viewport: PHONE, touch: true });
  await page.evaluate(() => document.querySelectorAll('#inputs details').forEach((d) => { d.open = true; }));
  const small = await page.$$eval('#inputs :is(a[href], button, input, select, textarea, summary), .summary-wrap :is(a[href], button)',
    (els) => els.map((el) => ({ el, r: el.getBoundingClientRect() }))
      .filter(({ el, r }) => r.width > 0 && r.height > 0 && !el.closest('.help')) // the docs link in a help is a link in its sentence
      .filter(({ r }) => r.width < 24 || r.height < 24)
      .map(({ el, r }) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : `.${el.className}`} ${r.width.toFixed(1)}×${r.height.toFixed(1)}`));
  assert.deepEqual([...new Set(small)], [], 'targets under 24 × 24 CSS px');
  await page.screenshot({ path: join(shots, 'a11y-targets-390.png') });
  await close(page);
});

test('Tab from the framework reaches the next input, not a "?"; F1 or "?" in an input opens its help, Escape closes it', async () => {
  const page = await open(env);
  await page.focus('#f-framework');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'f-model-preset', 'the next stop is the model preset');
  assert.equal(await page.$$eval('.help-toggle', (bs) => bs.filter((b) => b.tabIndex >= 0).length), 0, 'no "?" in the Tab order');
  // The help of the focused input, from the keyboard; the input keeps the focus and its value.
  const panel = '#f-parallel-tp-help';
  await page.focus('#f-parallel-tp');
  await page.keyboard.press('F1');
  await page.waitForSelector(panel, { state: 'visible' });
  assert.equal(await page.getAttribute('[aria-controls="f-parallel-tp-help"]', 'aria-expanded'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'f-parallel-tp');
  await page.keyboard.press('Escape');
  await page.waitForSelector(panel, { state: 'hidden' });
  await page.keyboard.press('?');
  await page.waitForSelector(panel, { state: 'visible' });
  assert.equal(await page.inputValue('#f-parallel-tp'), '4', '"?" is not typed into the field');
  // Tab from the input reaches the help's docs link; Escape there closes the help and returns to the input.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.closest('.help')?.id), 'f-parallel-tp-help');
  await page.keyboard.press('Escape');
  await page.waitForSelector(panel, { state: 'hidden' });
  assert.equal(await page.evaluate(() => document.activeElement.id), 'f-parallel-tp');
  // A select and a checkbox open theirs too.
  for (const id of ['f-training-recompute', 'f-parallel-sp']) {
    await page.focus(`#${id}`);
    await page.keyboard.press('F1');
    await page.waitForSelector(`#${id}-help`, { state: 'visible' });
  }
  assert.equal(await page.isChecked('#f-parallel-sp'), true, 'the key leaves the checkbox alone');
  await close(page);
});

test('a skip link is the first Tab stop, shows when focused and jumps to the results heading', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(env, '', { viewport });
    await page.keyboard.press('Tab');
    const skip = await page.evaluate(() => {
      const el = document.activeElement;
      const r = el.getBoundingClientRect();
      return { text: el.textContent, href: el.getAttribute('href'), top: r.top, left: r.left, width: r.width, height: r.height,
        hit: document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === el };
    });
    assert.equal(skip.text, 'Skip to results');
    assert.equal(skip.href, '#results-title');
    assert.ok(skip.top >= 0 && skip.left >= 0 && skip.width >= 24 && skip.height >= 24 && skip.hit, `visible when focused: ${JSON.stringify(skip)}`);
    await page.screenshot({ path: join(shots, `a11y-skip-${viewport.width}.png`) });
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => {
      const r = document.querySelector('#results-title').getBoundingClientRect();
      return r.top >= document.querySelector('.summary-wrap').getBoundingClientRect().bottom - 0.5 && r.bottom <= window.innerHeight;
    }, null, { timeout: 3000 });
    // Focus goes on from the heading: the next Tab stop is the results' first control.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'pin');
    // The skip link hides again; the page's state stays in the URL.
    assert.equal(await page.locator('.skip-link').evaluate((a) => a.getBoundingClientRect().bottom <= 0 || a.getBoundingClientRect().right <= 0), true);
    await page.waitForFunction(() => !window.location.hash.includes('results-title'), null, { timeout: 5000 }); // the hashchange puts it back
    await close(page);
  }
});

test('one live region carries the answer: the summary bar; #status keeps its data-state; errors are announced', async () => {
  const page = await open(env);
  const regions = () => page.evaluate(() => {
    const live = [...document.querySelectorAll('[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"]')];
    const answer = '[data-metric], [data-summary-metric], [data-verdict]';
    return live.filter((r) => r.matches(answer) || r.querySelector(answer)).map((r) => r.id || r.className);
  });
  assert.deepEqual(await regions(), ['summary']);
  assert.equal(await page.getAttribute('#status', 'data-state'), 'ready');
  assert.equal(await page.evaluate(() => document.querySelector('#status').closest('[aria-live], [role="status"], [role="alert"]')), null,
    '#status is no live region');
  // An error: the banner says it in a live region (the answer bar keeps the last plan's figures, marked stale).
  await TP_ERROR(page);
  assert.deepEqual(await regions(), ['summary']);
  const announced = await page.evaluate(() => [...document.querySelectorAll('[role="status"], [role="alert"], [aria-live]:not([aria-live="off"])')]
    .filter((r) => !r.hidden && r.textContent.includes('must divide')).map((r) => r.id || r.className));
  assert.ok(announced.includes('engine-error'), `the error is announced by #engine-error (${announced})`);
  // Once: the field's own error line is read with the field (aria-describedby), not announced again.
  assert.deepEqual(announced.filter((id) => id !== 'engine-error' && id !== 'summary'), [], `announced more than once: ${announced}`);
  const field = await page.evaluate(() => {
    const p = document.querySelector('.field-error');
    const input = document.querySelector(`[aria-describedby~="${p.id}"]`);
    return { live: p.matches('[role], [aria-live]'), described: !!input, invalid: input?.getAttribute('aria-invalid') };
  });
  assert.deepEqual(field, { live: false, described: true, invalid: 'true' });
  await close(page);
});

test('a contents link leaves its heading below the sticky answer bar (1440 and 390 px)', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(env, '', { viewport });
    assert.equal(await page.isVisible('#toc-compare'), false, 'Compare is listed only while a plan is pinned');
    for (const id of ['time-title', 'search-title', 'share-title', 'results-title']) {
      await page.click(`.toc a[href="#${id}"]`);
      await page.waitForTimeout(50);
      const at = await page.evaluate((i) => ({
        heading: document.getElementById(i).getBoundingClientRect().top,
        bar: document.querySelector('.summary-wrap').getBoundingClientRect().bottom,
        view: window.innerHeight,
      }), id);
      assert.ok(at.heading >= at.bar - 0.5 && at.heading < at.view, `${viewport.width} px, #${id}: heading at ${at.heading}, bar ends at ${at.bar}`);
    }
    await page.click('.toc a[href="#time-title"]');
    await page.screenshot({ path: join(shots, `a11y-contents-${viewport.width}.png`) });
    await close(page);
  }
});

test('an error message at tp moves no other field on the screen (1440 and 390 px)', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(env, '', { viewport });
    // Where a reader typing in tp sees the form: tp in the middle of the window; every other input of the form.
    await page.$eval('#f-parallel-tp', (el) => el.scrollIntoView({ block: 'center' }));
    const places = () => page.$$eval('#scenario-form [data-path]:not(#f-parallel-tp)', (els) => Object.fromEntries(els
      .map((el) => [el.id, el.getBoundingClientRect()]).filter(([, r]) => r.width > 0).map(([id, r]) => [id, [r.left, r.top]])));
    const before = await places();
    await TP_ERROR(page);
    const after = await places();
    const moved = Object.keys(before).filter((id) => before[id].some((v, i) => Math.abs(v - after[id][i]) > 1)) // subpixel scroll anchoring
      .map((id) => `${id}: ${before[id].map(Math.round)} → ${after[id].map(Math.round)}`);
    assert.deepEqual(moved, [], `${viewport.width} px: fields moved by the error`);
    // The message is below its input, inside the window's width.
    const box = await page.evaluate(() => {
      const e = document.querySelector('.field-error[data-error-for="/parallel/tp"]').getBoundingClientRect();
      return { top: e.top, left: e.left, right: e.right, input: document.querySelector('#f-parallel-tp').getBoundingClientRect().bottom };
    });
    assert.ok(box.top >= box.input && box.left >= 0 && box.right <= viewport.width, `${viewport.width} px: the message ${JSON.stringify(box)}`);
    await page.locator('#section-parallel').screenshot({ path: join(shots, `a11y-field-error-${viewport.width}.png`) });
    await close(page);
  }
});

test('dark mode: every input, select and textarea has the page\'s colours', async () => {
  const page = await open(env, '', { colorScheme: 'dark' });
  await page.evaluate(() => document.querySelectorAll('#inputs details').forEach((d) => { d.open = true; }));
  const odd = await page.evaluate(() => {
    const body = getComputedStyle(document.body);
    return [...document.querySelectorAll('input:not([type="checkbox"]):not([type="radio"]), select, textarea')]
      .filter((el) => el.getClientRects().length)
      .map((el) => ({ id: el.id, s: getComputedStyle(el) }))
      .filter(({ s }) => s.backgroundColor !== body.backgroundColor || s.color !== body.color)
      .map(({ id, s }) => `#${id}: ${s.backgroundColor} on ${s.color}`);
  });
  assert.deepEqual(odd, []);
  for (const id of ['share-url', 's-devices', 'hf-config', 'f-parallel-tp', 's-batch'])
    assert.notEqual(await page.$eval(`#${id}`, (el) => getComputedStyle(el).backgroundColor), 'rgb(255, 255, 255)', `#${id}`);
  await close(page);
});

test('XLA\'s tables at 390 px: the document does not scroll sideways, on the page and in the embed', async () => {
  for (const path of [link(XLA_BERT), `?embed=1${link(XLA_BERT)}`]) {
    const page = await open(env, path, { viewport: PHONE });
    await page.waitForSelector('#xla .xla-largest tbody tr');
    assert.equal(await sideways(page, PHONE.width), 0, `${path.slice(0, 9)}: sideways scroll`);
    assert.deepEqual(await axeViolations(page), [], 'axe-core on a TPU plan that does not fit (times marked hypothetical)');
    // Each table scrolls inside its own region instead.
    assert.equal(await page.$$eval('#xla table', (ts) => ts.filter((t) => !t.parentElement.matches('.scroll[role="region"][tabindex="0"]')).length), 0);
    await page.locator('#xla-section').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `a11y-xla-390${path.startsWith('?') ? '-embed' : ''}.png`) });
    await close(page);
  }
});

test('320 px: the document does not scroll sideways, on the default page and with an error', async () => {
  const page = await open(env, '', { viewport: { width: 320, height: 640 } });
  assert.equal(await sideways(page, 320), 0, 'default page');
  await TP_ERROR(page);
  assert.equal(await sideways(page, 320), 0, 'with an error');
  await page.screenshot({ path: join(shots, 'a11y-320-error.png'), fullPage: false });
  await close(page);
});
