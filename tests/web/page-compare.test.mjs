// "Compare two plans" in real Chromium: pin A, edit B, both columns equal the CLI for the two
// scenarios, rows that differ are highlighted (and only those), the pair is one link that reopens
// with the same comparison, unpin, a bad pin in a link, a phone screen and the embed view.
// Screenshots go to artifacts/screenshots/. Needs web/dist (scripts/build-web.sh) and the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DEFAULTS, V1_DEFAULTS, cliReport, close, open, scenario, shots, useBrowser } from './harness.mjs';

const env = useBrowser();

const dig = (obj, path) => path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

// The comparison table as data: one entry per figure row.
const compareRows = (page) => page.$$eval('#compare tr[data-compare-row]', (rows) => rows.map((r) => ({
  path: r.dataset.compareRow,
  differs: r.classList.contains('differs'),
  a: r.querySelector('[data-side="a"]').dataset.value,
  b: r.querySelector('[data-side="b"]').dataset.value,
  delta: r.querySelector('.delta').dataset.delta ?? null,
  deltaText: r.querySelector('.delta').textContent,
  highlight: getComputedStyle(r.querySelector('[data-side="b"]')).backgroundColor,
})));

// Waits until the comparison shows A's and B's peak, then checks every row against the two CLI
// reports: A's column is A's report, B's is B's, a row is highlighted exactly when they differ,
// and the difference is B − A of the two report numbers. `full`: the whole table (not the embed's).
async function expectCompare(page, ra, rb, full = true) {
  const peak = 'memory.per_device.total';
  try {
    await page.waitForFunction(([p, a, b]) => {
      const row = document.querySelector(`#compare tr[data-compare-row="${p}"]`);
      return row?.querySelector('[data-side="a"]').dataset.value === a && row.querySelector('[data-side="b"]').dataset.value === b;
    }, [peak, String(ra.memory.per_device.total), String(rb.memory.per_device.total)], { timeout: 8000 });
  } catch {
    assert.fail(`the comparison does not show A ${ra.memory.per_device.total} and B ${rb.memory.per_device.total}: ` +
      `${JSON.stringify((await compareRows(page)).find((r) => r.path === peak))}`);
  }
  const rows = await compareRows(page);
  const byPath = new Map(rows.map((r) => [r.path, r]));
  assert.equal(byPath.size, rows.length, 'one row per report path');
  const expected = ['memory.verdict.verdict', 'memory.verdict.margin', peak, 'time.step_seconds', 'time.mfu', 'throughput.tokens_per_second'];
  if (full) {
    const stages = Math.max(ra.memory.stages.length, rb.memory.stages.length);
    for (let i = 0; i < stages; i += 1)
      for (const f of ['weights', 'gradients', 'optimizer', 'activations', 'allocated', 'reserved', 'total']) expected.push(`memory.stages.${i}.${f}`);
    for (const part of new Set([...Object.keys(ra.time.breakdown), ...Object.keys(rb.time.breakdown)]))
      if (ra.time.breakdown[part] > 0 || rb.time.breakdown[part] > 0) expected.push(`time.breakdown.${part}`);
    for (const dim of new Set([...Object.keys(ra.communication_summary), ...Object.keys(rb.communication_summary)]))
      for (const f of ['volume_per_iteration', 'seconds', 'exposed_seconds']) expected.push(`communication_summary.${dim}.${f}`);
  } else assert.ok(!rows.some((r) => r.path.startsWith('memory.stages.')), 'the compact view has no per-stage rows');
  for (const path of expected) assert.ok(byPath.has(path), `a row for ${path}`);
  let differing = 0;
  let equal = 0;
  for (const r of rows) {
    const a = dig(ra, r.path);
    const b = dig(rb, r.path);
    assert.equal(r.a, String(a ?? ''), `A's ${r.path} is the CLI's`);
    assert.equal(r.b, String(b ?? ''), `B's ${r.path} is the CLI's`);
    const differs = String(a ?? '') !== String(b ?? '');
    assert.equal(r.differs, differs, `${r.path}: highlighted exactly when A and B differ (${a} vs ${b})`);
    if (differs && typeof a === 'number' && typeof b === 'number') {
      assert.equal(r.delta, String(b - a), `${r.path}: B − A`);
      assert.match(r.deltaText, b > a ? /^\+/ : /^−/, `${r.path}: signed difference`);
    }
    if (!differs) assert.equal(r.deltaText, '', `${r.path}: no difference shown when equal`);
    if (differs) differing += 1;
    else equal += 1;
  }
  assert.doesNotMatch(await page.textContent('#compare'), /\bnull\b|NaN|undefined|Infinity/, 'no raw non-numbers in the comparison');
  // The highlight is visible: differing rows have a background, equal rows none.
  const bg = (d) => new Set(rows.filter((r) => r.differs === d).map((r) => r.highlight));
  if (differing && equal) assert.ok([...bg(true)].every((c) => !bg(false).has(c)), 'differing rows look different from equal ones');
  return { rows, differing, equal };
}

test('pin A, change tp 4 → 8: both columns equal the CLI, only differing rows are highlighted; the pair link reopens the same comparison', async () => {
  const page = await open(env);
  assert.equal(await page.isHidden('#compare-section'), true, 'nothing pinned: no comparison');
  assert.equal(await page.isHidden('#toc-compare'), true);
  await page.click('#pin');
  await page.waitForSelector('#compare-section:not([hidden])');
  const ra = cliReport(DEFAULTS);
  // Pinned and not edited yet: A = B, nothing highlighted.
  const same = await expectCompare(page, ra, ra);
  assert.equal(same.differing, 0);
  assert.ok(await page.isVisible('#compare .compare-same'));
  await page.fill('#f-parallel-tp', '8');
  const rb = cliReport(scenario({ 'parallel.tp': 8 }));
  const { differing, equal } = await expectCompare(page, ra, rb);
  assert.ok(differing >= 10 && equal >= 1, `some rows differ (${differing}), some do not (${equal})`);
  // The sections below are B's alone.
  assert.equal(await page.getAttribute('[data-metric="memory.per_device.total"]', 'data-value'), String(rb.memory.per_device.total));
  assert.equal(await page.locator('#compare [data-metric]').count(), 0, 'the comparison holds no data-metric of its own');
  assert.ok(await page.isVisible('#toc-compare'));
  await page.click('#toc-compare'); // the contents link brings the comparison below the sticky bar
  await page.waitForFunction(() => window.location.hash.includes('pin='));
  assert.equal(await page.isHidden('#link-error'), true, 'a contents link keeps the state and reads as no link');
  assert.equal(await page.inputValue('#f-parallel-tp'), '8');
  await page.screenshot({ path: join(shots, 'compare-desktop.png') });

  // The pair is one link: B's fields, and A under pin=.
  const link = await page.inputValue('#share-url');
  const hash = new URL(link).hash;
  assert.match(hash, /^#v=2&parallel\.tp=8&pin=v%3D2(&|$)/, hash);
  const rows = await compareRows(page);
  const again = await open(env, hash);
  await expectCompare(again, ra, rb);
  assert.deepEqual(await compareRows(again), rows, 'the same comparison');
  assert.equal(await again.inputValue('#f-parallel-tp'), '8', 'the form holds B');
  await close(again);

  // Unpin: the comparison goes, and so does pin= from the link.
  await page.click('#unpin');
  await page.waitForSelector('#compare-section', { state: 'hidden' });
  assert.equal(await page.isHidden('#toc-compare'), true);
  assert.doesNotMatch(await page.inputValue('#share-url'), /pin=/);
  await page.waitForFunction(() => !window.location.hash.includes('pin='));
  await close(page);
});

test('70B on tp 8 pp 4: pin selective recompute, switch to full; every stage, time part and dimension equal the CLI; the unit follows', async () => {
  const plan = scenario({ 'model.preset': 'llama-3.1-70b', 'parallel.tp': 8, 'parallel.pp': 4, 'training.global_batch': 16 });
  const page = await open(env, '#v=2&model.preset=llama-3.1-70b&parallel.tp=8&parallel.pp=4&training.global_batch=16');
  await page.click('#pin');
  await page.selectOption('#f-training-recompute', 'full');
  const ra = cliReport(plan);
  const rb = cliReport(scenario({ 'training.recompute': 'full' }, plan));
  assert.equal(ra.memory.stages.length, 4);
  const { rows } = await expectCompare(page, ra, rb);
  const byPath = new Map(rows.map((r) => [r.path, r]));
  assert.ok(byPath.get('memory.stages.0.activations').differs, 'full recompute saves fewer activations');
  assert.ok(!byPath.get('memory.stages.0.weights').differs, 'and the same weights');
  assert.ok(byPath.get('time.breakdown.recompute').differs);
  // GB instead of GiB: same raw values, other text.
  const before = await page.textContent('#compare tr[data-compare-row="memory.per_device.total"] [data-side="a"]');
  await page.selectOption('#unit', 'GB');
  await page.waitForFunction((t) => document.querySelector('#compare tr[data-compare-row="memory.per_device.total"] [data-side="a"]').textContent !== t, before);
  await expectCompare(page, ra, rb);
  assert.match(await page.textContent('#compare thead'), /B − A/);
  assert.match(await page.textContent('#compare tbody'), /\(GB\)/);
  await close(page);
});

test('B does not fit: its times are marked "if it fitted"; the training run and its cost compare too', async () => {
  const run = { 'training.train_tokens': 1e12, 'hardware.price_per_gpu_hour': 2 };
  const page = await open(env, '#v=2&training.train_tokens=1e12&hardware.price_per_gpu_hour=2');
  await page.click('#pin');
  await page.fill('#f-training-micro_batch', '8');
  const ra = cliReport(scenario(run));
  const rb = cliReport(scenario({ ...run, 'training.micro_batch': 8 }));
  assert.equal(ra.memory.verdict.verdict, 'fits');
  assert.equal(rb.memory.verdict.verdict, 'does_not_fit');
  const { rows } = await expectCompare(page, ra, rb);
  for (const path of ['training_run.days', 'training_run.gpu_hours', 'training_run.cost'])
    assert.ok(rows.some((r) => r.path === path), `a row for ${path}`);
  const verdict = '#compare tr[data-compare-row="memory.verdict.verdict"]';
  assert.match(await page.textContent(`${verdict} [data-side="b"]`), /Does not fit/);
  assert.equal(await page.textContent(`${verdict} .delta`), 'changed');
  assert.equal(await page.locator('#compare thead th:nth-child(3) .hypo-label').count(), 1, 'B: "if it fitted"');
  assert.equal(await page.locator('#compare thead th:nth-child(2) .hypo-label').count(), 0, 'A fits');
  const step = '#compare tr[data-compare-row="time.step_seconds"]';
  assert.equal(await page.getAttribute(`${step} [data-side="b"]`, 'class'), 'num hypo');
  assert.equal(await page.getAttribute(`${step} [data-side="a"]`, 'class'), 'num');
  await close(page);
});

test('a pin link written by hand: a v=1 plan as A; an unreadable pin is named and dropped; an A the engine rejects is said next to the comparison', async () => {
  // A keeps its own link version: v=1 defaults with tp 2; B: the v=2 defaults.
  let page = await open(env, `#v=2&pin=${encodeURIComponent('v=1&parallel.tp=2')}`);
  await expectCompare(page, cliReport(scenario({ 'parallel.tp': 2 }, V1_DEFAULTS)), cliReport(DEFAULTS));
  assert.equal(await page.isHidden('#link-error'), true);
  await close(page);

  for (const pin of ['v%3D9', 'v%3D2%26parallel.tp%3Deight', 'v%3D2%26unit%3DGB', 'nothing']) {
    page = await open(env, `#v=2&parallel.tp=8&pin=${pin}`);
    await page.waitForSelector('#link-error:not([hidden])');
    assert.match(await page.textContent('#link-error'), /pin= \(plan A of the comparison\) was dropped: \S/, pin);
    assert.equal(await page.isHidden('#compare-section'), true, `${pin}: no comparison`);
    const rb = cliReport(scenario({ 'parallel.tp': 8 }));
    await page.waitForFunction((v) => document.querySelector('[data-metric="memory.per_device.total"]')?.dataset.value === v,
      String(rb.memory.per_device.total));
    assert.doesNotMatch(await page.inputValue('#share-url'), /pin=/, 'the share link drops the bad pin');
    await close(page);
  }

  // A reads but the engine rejects it (tp 3 does not divide the heads): B loads, the comparison says why.
  page = await open(env, `#v=2&parallel.tp=8&pin=${encodeURIComponent('v=2&parallel.tp=3')}`);
  await page.waitForSelector('#compare [data-compare-error="a"]');
  assert.match(await page.textContent('#compare .compare-error'), /Plan A could not be evaluated.*parallel/);
  assert.equal(await page.locator('#compare table').count(), 0);
  const rb = cliReport(scenario({ 'parallel.tp': 8 }));
  await page.waitForFunction((v) => document.querySelector('[data-metric="memory.per_device.total"]')?.dataset.value === v,
    String(rb.memory.per_device.total));
  // Pinning the current plan replaces the bad A.
  await page.click('#pin');
  await expectCompare(page, rb, rb);
  await close(page);
});

test('a pair link on a phone (390×844): no horizontal page scroll; in embed mode, a compact comparison', async () => {
  const a = scenario({ 'parallel.tp': 2, 'parallel.dp': 4 });
  const hash = `#v=2&training.recompute=full&pin=${encodeURIComponent('v=2&parallel.tp=2&parallel.dp=4')}`;
  const ra = cliReport(a);
  const rb = cliReport(scenario({ 'training.recompute': 'full' }));
  const phone = await open(env, hash, { viewport: { width: 390, height: 844 } });
  await expectCompare(phone, ra, rb);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal page scroll on a phone (overflow ${overflow}px)`);
  const box = await phone.locator('#compare .compare-scroll').boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 391, `the table's box fits the screen: ${JSON.stringify(box)}`);
  const sideways = await phone.$eval('#compare .compare-scroll', (el) => el.scrollWidth - el.clientWidth);
  assert.ok(sideways <= 1, `the four columns fit a phone without scrolling sideways (${sideways}px over)`);
  await phone.click('#toc-compare');
  await phone.screenshot({ path: join(shots, 'compare-phone.png') });
  await phone.screenshot({ path: join(shots, 'compare-phone-page.png'), fullPage: true });
  await close(phone);

  const embed = await open(env, `?embed=1${hash}`, { viewport: { width: 640, height: 560 } });
  await expectCompare(embed, ra, rb, false);
  assert.equal(await embed.isVisible('#pin'), false, 'no pin button in the embed view');
  assert.equal(await embed.isVisible('#unpin'), false);
  await embed.screenshot({ path: join(shots, 'compare-embed.png'), fullPage: true });
  await close(embed);
});

test('a link the page could not read back is never written: pinning beside a long plan keeps the last link that fits', async () => {
  // A plan named with 40,000 characters: its link fits the 65,536 the page reads; pinned beside itself it would not.
  const name = 'x'.repeat(40000);
  const page = await open(env, `#v=2&name=${name}`);
  const before = await page.evaluate(() => window.location.hash);
  assert.ok(before.length > 40000 && before.length < 65536);
  await page.click('#pin');
  await page.waitForFunction(() => !document.querySelector('#link-error').hidden);
  assert.match(await page.textContent('#link-error-text'), /link would be 8\d,\d{3} characters, too long for a link \(this page reads at most 65,536\)/);
  assert.equal(await page.evaluate(() => window.location.hash), before);
  assert.ok(!(await page.inputValue('#share-url')).includes('pin='));
  // Unpinned, the plan fits again: the note goes and the link follows the form once more.
  await page.click('#unpin');
  await page.waitForFunction(() => document.querySelector('#link-error').hidden);
  await page.fill('#f-parallel-tp', '2');
  await page.waitForFunction(() => window.location.hash.includes('parallel.tp=2'));
  await close(page);
});
