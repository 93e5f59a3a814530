// Tables and charts people read (issue 10, point 8), in real Chromium at desktop (1440×900) and
// phone (390×844) sizes: units that match the values in the communication table, grouped headers,
// dollars, large numbers in words, a pipeline chart at hundreds of microbatches, roofline labels
// that never overlap, and preset names in full. Every number shown is checked against the CLI
// (`build/engine/shardcalc estimate --format json -`). Screenshots go to artifacts/screenshots/.
// Needs web/dist (node web/build.mjs) and build/engine/shardcalc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DEFAULTS, DESKTOP, PHONE, cliReport, close, expectMetric, link, lowerChartsDrawn, markdownOutput, open, shots, useBrowser } from './harness.mjs';

const env = useBrowser();

const SIZES = [['desktop', DESKTOP], ['phone', PHONE]];

// examples/llama-3.1-70b-h100.json with a 15 T-token run at $2.50 per GPU-hour: millions of GPU-hours.
const RUN_70B = {
  framework: 'megatron',
  model: { preset: 'llama-3.1-70b' },
  training: { seq_len: 8192, micro_batch: 1, global_batch: 512, recompute: 'selective', train_tokens: 15e12 },
  parallel: { dp: 8, tp: 8, pp: 4, sp: true, distributed_optimizer: true },
  hardware: { preset: 'h100-sxm-80gb', price_per_gpu_hour: 2.5 },
};
// ZeRO-3 over a data-parallel group of one: its three collectives exchange nothing and take no time.
const ZERO3_ALONE = {
  framework: 'deepspeed',
  model: { preset: 'llama-3.1-8b' },
  training: { seq_len: 4096, micro_batch: 1, global_batch: 16 },
  parallel: { dp: 1, tp: 2, zero: 3 },
  hardware: { preset: 'h100-sxm-80gb' },
};
// Hundreds of microbatches: 256 through 8 stages (4,096 passes, the most the engine's timeline lists).
const PP8_256 = {
  framework: 'megatron',
  model: { preset: 'llama-3.1-70b' },
  training: { seq_len: 4096, micro_batch: 1, global_batch: 256 },
  parallel: { dp: 1, tp: 8, pp: 8, sp: true },
  hardware: { preset: 'h100-sxm-80gb' },
};
// 500 microbatches through 4 stages.
const PP4_500 = { ...PP8_256, training: { ...PP8_256.training, global_batch: 500 }, parallel: { ...PP8_256.parallel, pp: 4 } };

const textOf = (page, selector) => page.locator(selector).first().evaluate((n) => n.textContent.trim());

// Nothing that reads as a broken figure anywhere in `selector`.
async function noBrokenFigures(page, selector) {
  const text = await page.textContent(selector);
  assert.ok(!/\bNaN\b|Infinity|undefined|null/.test(text), `no NaN/Infinity/undefined/null in ${selector}`);
  for (const value of await page.$$eval(`${selector} [data-metric]`, (ns) => ns.map((n) => n.textContent)))
    assert.ok(!/^\s*[-−]/.test(value) || /margin/.test(value), `no negative figure in ${selector}: ${value}`);
}

// Bytes shown with their own unit: the number in that unit equals the CLI's value (two decimals), and
// the unit is the largest one that keeps the number at 1 or more, in the page's binary/decimal family.
const UNITS = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, kB: 1e3, MB: 1e6, GB: 1e9 };
function expectBytesText(text, value, family) {
  const m = /^([\d,.]+)\u00a0(B|KiB|MiB|GiB|kB|MB|GB)$/.exec(text.trim());
  assert.ok(m, `a byte cell carries its unit: "${text}"`);
  const shown = Number(m[1].replaceAll(',', ''));
  assert.ok(Math.abs(shown * UNITS[m[2]] - value) <= 0.005 * UNITS[m[2]] + 1e-6, `${text} = ${value} bytes`);
  const family$ = family === 'GiB' ? ['B', 'KiB', 'MiB', 'GiB'] : ['B', 'kB', 'MB', 'GB'];
  assert.equal(m[2], family$.filter((u) => value >= UNITS[u]).pop() || 'B', `${value} bytes reads in the largest unit under it`);
}

// A large count in words: from a million up in M/B/T with three significant digits, below with separators.
const SCALE = { M: 1e6, B: 1e9, T: 1e12 };
function expectLargeText(text, value) {
  const m = /^([\d,.]+)(?:\u00a0([MBT]))?$/.exec(text.trim());
  assert.ok(m, `a large count reads "15 T" or "524,288": "${text}"`);
  const shown = Number(m[1].replaceAll(',', '')) * (SCALE[m[2]] || 1);
  if (value >= 1e6) {
    assert.ok(m[2], `${value} reads in words: ${text}`);
    assert.ok(Math.abs(shown - value) <= 0.005 * value, `${text} ≈ ${value}`);
    assert.ok(m[1].replaceAll(/[,.]/g, '').replace(/^0+/, '').length <= 4, `three significant digits: ${text}`);
  } else {
    assert.ok(!m[2], `${value} reads in digits: ${text}`);
    assert.ok(Math.abs(shown - value) <= (value >= 1000 ? 0.5 : 0.005 * value), `${text} ≈ ${value}`);
  }
}

// The CLI's dollars as the page writes them: whole dollars from $100 up, with separators.
const dollars = (v) => (v >= 100 ? `$${Math.round(v).toLocaleString('en-US')}` : `$${v.toFixed(2)}`);

// ---- 1. Communication table ------------------------------------------------------------------

test('communication table: every size carries its own unit, columns in labelled groups, idle collectives counted not listed', async () => {
  const report = cliReport(DEFAULTS);
  const messages = new Set(report.communication.map((c) => c.bytes));
  assert.ok([...messages].some((b) => b < 2 ** 20) && [...messages].some((b) => b >= 2 ** 20 && b < 2 ** 30),
    'the default plan has KiB and MiB messages');
  for (const [name, viewport] of SIZES) {
    const page = await open(env, '', { viewport });
    await expectMetric(page, 'communication.0.bytes', report.communication[0].bytes);
    // No header names a unit the cells do not all have: byte columns say none, each cell says its own.
    const heads = await page.$$eval('#comm-table thead th', (ns) => ns.map((n) => n.textContent));
    assert.ok(!heads.some((t) => /GiB|GB|MiB/.test(t)), `no byte unit in a header: ${heads.join(' | ')}`);
    for (const [unit, family] of [['GiB', 'GiB'], ['GB', 'GB']]) {
      await page.selectOption('#unit', unit);
      await page.waitForFunction((u) => document.querySelector('#comm-table caption')?.textContent.includes('each size carries its unit') &&
        document.querySelector('#unit').value === u, unit);
      for (const [i, c] of report.communication.entries()) {
        await expectMetric(page, `communication.${i}.bytes`, c.bytes);
        expectBytesText(await textOf(page, `#comm-table [data-metric="communication.${i}.bytes"]`), c.bytes, family);
        expectBytesText(await textOf(page, `#comm-table [data-metric="communication.${i}.volume_per_iteration"]`), c.volume_per_iteration, family);
      }
      for (const [dim, d] of Object.entries(report.communication_summary)) {
        await expectMetric(page, `communication_summary.${dim}.volume_per_iteration`, d.volume_per_iteration);
        await expectMetric(page, `communication_summary.${dim}.seconds`, d.seconds);
        await expectMetric(page, `communication_summary.${dim}.count_per_iteration`, d.count_per_iteration);
        expectBytesText(await textOf(page, `#comm-table [data-metric="communication_summary.${dim}.volume_per_iteration"]`), d.volume_per_iteration, family);
      }
    }
    await page.selectOption('#unit', 'GiB');
    // Two header rows: the groups (with <colgroup>s behind them) over the columns, spans adding up.
    const layout = await page.evaluate(() => {
      const t = document.querySelector('#comm-table');
      const rows = [...t.tHead.rows];
      return { rows: rows.length, groups: [...rows[0].cells].map((c) => [c.textContent, c.colSpan, c.scope]),
        columns: rows[1].cells.length, colgroups: [...t.querySelectorAll('colgroup')].map((g) => g.span),
        body: t.tBodies[0].rows[0].cells.length };
    });
    assert.equal(layout.rows, 2);
    assert.deepEqual(layout.groups.map(([t]) => t), ['What', 'Group', 'Per iteration', 'Time per iteration (ms)']);
    assert.ok(layout.groups.every(([, , scope]) => scope === 'colgroup'));
    assert.equal(layout.groups.reduce((n, [, span]) => n + span, 0), layout.columns);
    assert.deepEqual(layout.colgroups, layout.groups.map(([, span]) => span));
    assert.equal(layout.body, layout.columns, 'rows as wide as the header');
    await noBrokenFigures(page, '#comm-table');
    if (name === 'phone') {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `the table scrolls inside its box, not the page (${overflow}px)`);
    }
    await page.locator('#comm-table').scrollIntoViewIfNeeded();
    await page.locator('#comm-table').locator('xpath=..').screenshot({ path: join(shots, `readable-comm-table-${name}.png`) });
    await close(page);
  }

  // ZeRO-3 over a group of one device: the engine lists three collectives that take no time; the
  // table leaves them out and says how many, and the dimensions that do communicate stay.
  const alone = cliReport(ZERO3_ALONE);
  const idle = alone.communication.map((c, i) => [c, i]).filter(([c]) => c.seconds === 0 && c.exposed_seconds === 0);
  assert.equal(idle.length, 3);
  assert.ok(idle.every(([c]) => c.dimension === 'zero3' && c.algorithm === 'none' && c.group_size === 1));
  const page = await open(env, link(ZERO3_ALONE), { viewport: PHONE });
  for (const [c, i] of alone.communication.map((c, i) => [c, i]).filter(([c]) => c.seconds > 0))
    await expectMetric(page, `communication.${i}.seconds`, c.seconds);
  for (const [, i] of idle) assert.equal(await page.locator(`#comm-table [data-metric^="communication.${i}."]`).count(), 0, `entry ${i} not listed`);
  assert.equal(await page.locator('#comm-table tbody[data-dimension="zero3"]').count(), 0, 'no zero3 group or subtotal');
  assert.equal(await page.getAttribute('#comm-table [data-hidden-rows]', 'data-hidden-rows'), '3');
  assert.match(await textOf(page, '#comm-table tfoot'), /^Not listed: 3 zero3 collectives that exchange nothing and take no time \(a group of one device\)\.$/);
  await page.locator('#comm-table').scrollIntoViewIfNeeded();
  await page.locator('#comm-table').locator('xpath=..').screenshot({ path: join(shots, 'readable-comm-table-idle-phone.png') });
  await close(page);
});

// ---- 2. Stage table ----------------------------------------------------------------------------

test('stage table: a group header shows the parts adding up to Allocated, + fragmentation = Reserved, + overhead = Total', async () => {
  const offload = { framework: 'deepspeed', model: { preset: 'llama-3.1-8b' }, training: { seq_len: 4096, micro_batch: 1, global_batch: 16 },
    parallel: { dp: 8, zero: 2, offload_optimizer: 'cpu' }, hardware: { preset: 'h100-sxm-80gb' } };
  for (const [name, viewport, scenario] of [['desktop', DESKTOP, RUN_70B], ['phone', PHONE, RUN_70B], ['offload-desktop', DESKTOP, offload]]) {
    const report = cliReport(scenario);
    const page = await open(env, link(scenario), { viewport });
    await expectMetric(page, 'memory.per_device.total', report.memory.per_device.total);
    const table = await page.evaluate(() => {
      const t = document.querySelector('#stage-table');
      const [top, sub] = t.tHead.rows;
      // The column each header cell stands over, through row and column spans.
      const lead = [...top.cells].filter((c) => c.rowSpan === 2).map((c) => c.textContent);
      const groups = [...top.cells].filter((c) => c.scope === 'colgroup').map((c) => ({ id: c.dataset.group, text: c.textContent, span: c.colSpan }));
      const cols = [...sub.cells].map((c) => ({ text: c.textContent, group: c.dataset.group }));
      const body = [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.dataset.metric || ''));
      const colgroups = [...t.querySelectorAll('colgroup')].map((g) => [g.dataset.group || 'lead', g.span]);
      return { lead, groups, cols, body, colgroups };
    });
    assert.deepEqual(table.lead, ['Stage', 'Layers', 'In-flight']);
    const host = report.memory.stages.some((s) => s.host.cpu > 0 || s.host.nvme > 0);
    assert.deepEqual(table.groups.map((g) => g.id), ['allocated', 'reserved', 'total', ...(host ? ['host'] : [])]);
    assert.deepEqual(table.groups.map((g) => g.text), ['Allocated at the peak: the parts and their sum (GiB)', 'Reserved by the allocator (GiB)',
      'Total on the device (GiB)', ...(host ? ['Offloaded to the host (GiB)'] : [])]);
    assert.deepEqual(table.colgroups, [['lead', 3], ...table.groups.map((g) => [g.id, g.span])]);
    // Each group spans exactly its columns, in order.
    let at = 0;
    for (const g of table.groups) {
      assert.ok(table.cols.slice(at, at + g.span).every((c) => c.group === g.id), `${g.id} spans its own columns`);
      at += g.span;
    }
    assert.equal(at, table.cols.length);
    // The sums read "= …", the steps to them "+ …", and each sits over the report field it names.
    const field = (text) => table.body[0][3 + table.cols.findIndex((c) => c.text === text)];
    const nb = '\u00a0';
    assert.equal(field(`=${nb}Allocated`), 'memory.stages.0.allocated');
    assert.equal(field(`+${nb}Frag\u00admen\u00adtation`), 'memory.stages.0.other_detail.fragmentation');
    assert.equal(field(`=${nb}Reserved`), 'memory.stages.0.reserved');
    assert.equal(field(`+${nb}Over\u00adhead`), 'memory.stages.0.other_detail.overhead');
    assert.equal(field(`=${nb}Total`), 'memory.stages.0.total');
    const allocated = table.cols.filter((c) => c.group === 'allocated');
    assert.equal(allocated.at(-1).text, `=${nb}Allocated`, 'the sum closes its group');
    assert.ok(allocated.slice(0, -1).every((c) => !/^[=+]/.test(c.text)), 'the parts carry no operator');
    assert.deepEqual(table.groups.slice(1, 3).map((g) => g.span), [2, 2], 'one step and its sum in each later group');
    if (host) assert.ok(table.cols.filter((c) => c.group === 'host').every((c) => /^Host/.test(c.text)));
    for (const [i, s] of report.memory.stages.entries())
      for (const f of ['weights', 'gradients', 'optimizer', 'activations', 'allocated', 'other_detail.fragmentation', 'reserved', 'other_detail.overhead', 'total'])
        await expectMetric(page, `memory.stages.${i}.${f}`, f.split('.').reduce((o, k) => o[k], s));
    if (host) await expectMetric(page, 'memory.stages.0.host.cpu', report.memory.stages[0].host.cpu);
    await noBrokenFigures(page, '#stage-table');
    await page.locator('#stage-table').scrollIntoViewIfNeeded();
    await page.locator('#stage-table').locator('xpath=..').screenshot({ path: join(shots, `readable-stage-table-${name}.png`) });
    await close(page);
  }
});

// ---- 3 and 4. Dollars and large numbers in words ---------------------------------------------------

test('cost in US dollars and large numbers in words (train tokens, GPU-hours, parameters, tokens per step, tokens/s), with a hint in the form', async () => {
  const report = cliReport(RUN_70B);
  const run = report.training_run;
  assert.ok(run.gpu_hours > 1e6 && run.cost > 1e6 && run.tokens === 15e12);
  for (const [name, viewport] of SIZES) {
    const page = await open(env, '', { viewport });
    const label = await page.textContent('label[for="f-hardware-price_per_gpu_hour"]');
    assert.equal(label.trim(), 'Price per GPU-hour (USD)');
    // Typed into the form as a person would: the 70B example with a 15 T-token run at $2.50.
    await page.selectOption('#f-model-preset', 'llama-3.1-70b');
    for (const [id, v] of [['training-seq_len', '8192'], ['training-global_batch', '512'], ['parallel-dp', '8'], ['parallel-tp', '8'],
      ['parallel-pp', '4'], ['training-train_tokens', '15000000000000'], ['hardware-price_per_gpu_hour', '2.5']])
      await page.fill(`#f-${id}`, v);
    await page.setChecked('#f-parallel-distributed_optimizer', true);
    for (const f of ['tokens', 'gpu_hours', 'cost', 'days', 'price_per_gpu_hour']) await expectMetric(page, `training_run.${f}`, run[f]);

    // The time section: "Training on 15 T tokens: … days · 4.28 M GPU-hours · cost $10,709,882 at $2.50 per GPU-hour".
    assert.equal(await textOf(page, '#time-headline [data-metric="training_run.tokens"]'), '15\u00a0T');
    assert.equal(await page.getAttribute('#time-headline [data-metric="training_run.tokens"]', 'title'), '15,000,000,000,000');
    expectLargeText(await textOf(page, '#time-headline [data-metric="training_run.gpu_hours"]'), run.gpu_hours);
    assert.equal(await textOf(page, '#time-headline [data-metric="training_run.cost"]'), dollars(run.cost));
    assert.equal(await textOf(page, '#time-headline [data-metric="training_run.price_per_gpu_hour"]'), '$2.50');
    assert.match(await textOf(page, '#time-headline p:has([data-metric="training_run.cost"])'),
      /Training on 15\u00a0T tokens: [\d,.]+ days · [\d.]+\u00a0M GPU-hours · cost \$[\d,]+ at \$2\.50 per GPU-hour$/);
    // The summary bar: "15 T tokens … days · $10,709,882".
    assert.equal(await textOf(page, '#summary [data-summary-metric="training_run.cost"]'), dollars(run.cost));
    assert.match(await page.textContent('#summary'), /15\u00a0T tokens/);
    // The Markdown export (dollar signs escaped: two on a line read as math to GitHub).
    const md = await markdownOutput(page);
    assert.ok(md.includes(`cost \\${dollars(run.cost)} at \\$2.50 per GPU-hour`), md);

    // Parameters, tokens per step and tokens/s as report values in words.
    await expectMetric(page, 'parameters.total', report.parameters.total);
    expectLargeText(await textOf(page, '#headline [data-metric="parameters.total"]'), report.parameters.total);
    assert.equal(await page.getAttribute('#headline [data-metric="parameters.total"]', 'title'), report.parameters.total.toLocaleString('en-US'));
    await expectMetric(page, 'derived.tokens_per_step', report.derived.tokens_per_step);
    expectLargeText(await textOf(page, '[data-metric="derived.tokens_per_step"]'), report.derived.tokens_per_step);
    expectLargeText(await textOf(page, '#time-headline [data-metric="throughput.tokens_per_second"]'), report.throughput.tokens_per_second);

    // The form: the digits stay in the input, the words beside it.
    assert.equal(await page.inputValue('#f-training-train_tokens'), '15000000000000');
    assert.equal(await textOf(page, '[data-hint-for="training.train_tokens"]'), '= 15\u00a0T');
    assert.ok(await page.isVisible('[data-hint-for="training.train_tokens"]'));
    assert.equal(await page.isVisible('[data-hint-for="training.seq_len"]'), false, 'small values get no hint');
    await page.locator('#f-training-train_tokens').scrollIntoViewIfNeeded();
    await page.locator('#section-training').screenshot({ path: join(shots, `readable-form-hint-${name}.png`) });
    await page.locator('#time-headline').screenshot({ path: join(shots, `readable-training-run-${name}.png`) });
    await page.screenshot({ path: join(shots, `readable-summary-${name}.png`) });
    await noBrokenFigures(page, '#time-headline');
    await page.fill('#f-training-train_tokens', '2.5e9');
    await page.waitForFunction(() => document.querySelector('[data-hint-for="training.train_tokens"]')?.textContent === '= 2.5\u00a0B');
    await page.fill('#f-training-train_tokens', '');
    await page.waitForFunction(() => document.querySelector('[data-hint-for="training.train_tokens"]')?.hidden);
    // A field with − / + steppers around its input (guide.js) gets its hint too.
    await page.fill('#f-training-global_batch', '2097152');
    await page.waitForFunction(() => document.querySelector('[data-hint-for="training.global_batch"]')?.textContent === '= 2.1\u00a0M');
    await close(page);
  }

  // Tokens per second past a million read in words too, in the time section and the summary.
  const fast = { framework: 'megatron', model: { preset: 'gpt2' }, training: { seq_len: 1024, micro_batch: 8, global_batch: 512 },
    parallel: { dp: 64 }, hardware: { preset: 'h100-sxm-80gb' } };
  const quick = cliReport(fast);
  assert.ok(quick.throughput.tokens_per_second > 1e6);
  const page = await open(env, link(fast), { viewport: PHONE });
  await expectMetric(page, 'throughput.tokens_per_second', quick.throughput.tokens_per_second);
  expectLargeText(await textOf(page, '#time-headline [data-metric="throughput.tokens_per_second"]'), quick.throughput.tokens_per_second);
  expectLargeText(await textOf(page, '#summary [data-summary-metric="throughput.tokens_per_second"]'), quick.throughput.tokens_per_second);
  expectLargeText(await textOf(page, '#headline [data-metric="parameters.total"]'), quick.parameters.total);
  await close(page);
});

// ---- 5. Pipeline chart ---------------------------------------------------------------------------

// The drawn runs, per stage and kind, with their report times and pixel extent.
const runsOnPage = (page) => page.$$eval('#gantt rect.run', (ns) => ns.map((n) => ({
  stage: Number(n.dataset.stage), kind: n.dataset.kind, first: Number(n.dataset.first), last: Number(n.dataset.last),
  start: Number(n.dataset.start), end: Number(n.dataset.end), x: Number(n.getAttribute('x')), w: Number(n.getAttribute('width')),
  title: n.querySelector('title').textContent })));

test('pipeline chart at hundreds of microbatches: runs of passes in a forward and a backward lane, a legend, and every pass on request', async () => {
  for (const [name, viewport, scenario] of [['desktop', DESKTOP, PP8_256], ['phone', PHONE, PP8_256], ['500-phone', PHONE, PP4_500], ['500-desktop', DESKTOP, PP4_500]]) {
    const report = cliReport(scenario);
    const t = report.pipeline.timeline;
    assert.ok(report.pipeline.timeline_complete && t.stage.length >= 4000, `${name}: ${t.stage.length} passes`);
    assert.ok(report.derived.microbatches >= 256);
    const page = await open(env, link(scenario), { viewport });
    await expectMetric(page, 'time.step_seconds', report.time.step_seconds);
    await lowerChartsDrawn(page);
    await page.waitForSelector('#gantt svg[data-mode="runs"]');
    assert.equal(await page.getAttribute('#gantt svg', 'data-blocks'), String(t.stage.length));
    const runs = await runsOnPage(page);
    assert.ok(runs.length > 0 && runs.length < t.stage.length / 20, `${runs.length} runs for ${t.stage.length} passes`);
    // Every pass lies inside one run of its stage and kind; a run starts and ends at report times.
    for (let i = 0; i < t.stage.length; i += 1) {
      const kind = t.kind[i] === 'B' ? 'B' : 'F';
      assert.ok(runs.some((r) => r.stage === t.stage[i] && r.kind === kind && r.start <= t.start[i] && t.end[i] <= r.end), `pass ${i} drawn`);
    }
    for (const r of runs) {
      assert.equal(r.start, t.start[r.first]);
      assert.equal(r.end, t.end[r.last]);
      assert.ok(r.w >= 1, 'no run thinner than a pixel');
    }
    // Runs of a lane do not overlap, and the gaps left between them are wide enough to see.
    const lanes = new Map();
    for (const r of runs) lanes.set(`${r.stage}${r.kind}`, [...(lanes.get(`${r.stage}${r.kind}`) || []), r]);
    assert.equal(lanes.size, report.pipeline.stages.length * 2, 'a forward and a backward lane per stage');
    for (const lane of lanes.values()) {
      lane.sort((a, b) => a.start - b.start);
      for (let k = 1; k < lane.length; k += 1) {
        assert.ok(lane[k].start >= lane[k - 1].end, 'runs in a lane do not overlap');
        assert.ok(lane[k].x - (lane[k - 1].x + lane[k - 1].w) >= 3.9, `a gap between runs is at least 4 px (${lane[k].x - (lane[k - 1].x + lane[k - 1].w)})`);
      }
    }
    const first = runs.find((r) => r.stage === 0 && r.kind === 'F' && r.first === 0) || runs.find((r) => r.stage === 0 && r.kind === 'F');
    assert.match(first.title, /^stage 0, forward passes of microbatch(es \d+–\d+| \d+), [\d.]+–[\d.]+ (s|ms)$/);
    const legend = await textOf(page, '#gantt-legend');
    assert.match(legend, /Forward \(top half of a row\)/);
    assert.match(legend, /Backward \(bottom half\)/);
    assert.match(legend, /a block is a run of passes less than 4 px apart/);
    await page.locator('#gantt').scrollIntoViewIfNeeded();
    const clip = await page.evaluate(() => {
      const a = document.querySelector('#gantt').getBoundingClientRect();
      const b = document.querySelector('#gantt-legend').getBoundingClientRect();
      return { x: 0, y: a.top + window.scrollY - 8, width: window.innerWidth, height: b.bottom - a.top + 16 };
    });
    await page.screenshot({ path: join(shots, `readable-gantt-${name}.png`), clip, fullPage: true });

    // "Show every pass": the chart widens past its box (it scrolls) until each pass is its own block.
    await page.click('#gantt-legend .gantt-zoom');
    await page.waitForSelector('#gantt svg:not([data-mode="runs"])');
    const wide = await page.evaluate(() => ({ svg: Number(document.querySelector('#gantt svg').getAttribute('width')),
      box: document.querySelector('#gantt').clientWidth, scroll: document.querySelector('#gantt').scrollWidth }));
    assert.ok(wide.svg > wide.box * 2 && wide.scroll > wide.box, `every pass drawn wider than the box: ${JSON.stringify(wide)}`);
    assert.equal(await page.getAttribute('#gantt-legend .gantt-zoom', 'aria-pressed'), 'true');
    if (name === 'desktop') await page.locator('#gantt').screenshot({ path: join(shots, 'readable-gantt-every-pass-desktop.png') });
    await page.click('#gantt-legend .gantt-zoom');
    await page.waitForSelector('#gantt svg[data-mode="runs"]');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no horizontal page scroll (${overflow}px)`);
    await close(page);
  }

  // A few microbatches still draw one numbered block per pass.
  const few = { ...PP8_256, training: { ...PP8_256.training, global_batch: 16 } };
  const report = cliReport(few);
  const page = await open(env, link(few), { viewport: DESKTOP });
  await expectMetric(page, 'time.step_seconds', report.time.step_seconds);
  await lowerChartsDrawn(page);
  await page.waitForSelector('#gantt svg[data-mode="blocks"]');
  assert.equal(await page.locator('#gantt rect.block').count(), report.pipeline.timeline_events);
  assert.equal(await page.locator('#gantt-legend .gantt-zoom').count(), 0, 'nothing to zoom');
  await close(page);
});

// ---- 6. Roofline ----------------------------------------------------------------------------------

test('roofline: op names never overlap each other, a dot or the chart’s own labels; every op is in the table with the CLI’s figures', async () => {
  const cases = [
    ['default-desktop', DEFAULTS, DESKTOP],
    ['default-phone', DEFAULTS, PHONE],
    ['bert-tpu-phone', { framework: 'xla', model: { preset: 'bert-base' }, training: { seq_len: 512, micro_batch: 8 }, hardware: { preset: 'tpu-v5e' } }, PHONE],
    ['gpt2-eager-desktop', { framework: 'pytorch', model: { preset: 'gpt2' }, training: { seq_len: 1024, micro_batch: 8, attention: 'eager' }, hardware: { preset: 'v100-sxm-16gb' } }, DESKTOP],
  ];
  for (const [name, scenario, viewport] of cases) {
    const report = cliReport(scenario);
    const ops = report.modules.map((m, i) => [m, i]).filter(([m]) => m.kind === 'op' && m.fwd_flops > 0 && m.fwd_bytes > 0 && m.fwd_seconds > 0);
    assert.ok(ops.length >= 5, `${name}: ${ops.length} ops`);
    const page = await open(env, link(scenario), { viewport });
    await expectMetric(page, 'time.step_seconds', report.time.step_seconds);
    await lowerChartsDrawn(page);
    await page.waitForSelector('#roofline svg');
    const shapes = await page.evaluate(() => {
      const s = document.querySelector('#roofline svg');
      const box = (n) => { const r = n.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
      const frame = box(s.querySelector('rect.frame'));
      return {
        frame,
        texts: [...s.querySelectorAll('text')].map((n) => ({ path: n.dataset.path, text: n.textContent, ...box(n) })),
        dots: [...s.querySelectorAll('circle.dot')].map((n) => ({ path: n.dataset.path, ...box(n) })),
        leaders: s.querySelectorAll('line.leader').length,
      };
    });
    // An op's label is its name (or the last two parts of its path where names repeat); the rest are the chart's own.
    const names = new Set(ops.flatMap(([m]) => [m.name, m.path.split('/').slice(-2).join('/')]));
    shapes.labels = shapes.texts.filter((n) => names.has(n.text));
    shapes.others = shapes.texts.filter((n) => !names.has(n.text));
    const overlap = (a, b, slack = 0.5) => a.x + slack < b.x + b.w && b.x + slack < a.x + a.w && a.y + slack < b.y + b.h && b.y + slack < a.y + a.h;
    assert.equal(shapes.dots.length, ops.length);
    assert.ok(shapes.labels.length >= Math.min(3, ops.length), `${name}: ${shapes.labels.length} ops named`);
    for (const [k, a] of shapes.labels.entries()) {
      for (const b of shapes.labels.slice(k + 1)) assert.ok(!overlap(a, b), `${name}: "${a.text}" overlaps "${b.text}"`);
      for (const b of shapes.others) assert.ok(!overlap(a, b), `${name}: "${a.text}" overlaps "${b.text}"`);
      for (const d of shapes.dots) assert.ok(!overlap(a, d), `${name}: "${a.text}" covers the dot of ${d.path}`);
      assert.ok(a.x >= shapes.frame.x && a.x + a.w <= shapes.frame.x + shapes.frame.w + 0.5 && a.y >= shapes.frame.y - 0.5 &&
        a.y + a.h <= shapes.frame.y + shapes.frame.h + 0.5, `${name}: "${a.text}" inside the plot`);
    }
    for (const a of shapes.labels) assert.ok(ops.some(([m]) => m.path === a.path && a.text.endsWith(m.name)), `${name}: "${a.text}" names its op (${a.path})`);
    // The chart's own labels stay inside the chart too (the ridge label flips left near the right edge).
    const svgBox = await page.locator('#roofline svg').boundingBox();
    for (const b of shapes.others) assert.ok(b.x >= svgBox.x - 0.5 && b.x + b.w <= svgBox.x + svgBox.width + 0.5, `${name}: "${b.text}" inside the chart`);
    // Dots left unnamed are outlined and the legend says how many; every op is in the table.
    const unnamed = ops.length - shapes.labels.length;
    assert.equal(await page.locator('#roofline circle.dot.unlabelled').count(), unnamed);
    assert.match(await textOf(page, '#roofline-legend'), unnamed ? new RegExp(`${unnamed} of ${ops.length} dots unnamed`) : /every op named/);
    await page.click('#roofline details.as-table summary');
    assert.equal(await page.locator('#roofline-table tbody tr').count(), ops.length);
    for (const [m, i] of ops) {
      for (const f of ['fwd_intensity', 'fwd_flops_per_second', 'fwd_seconds']) await expectMetric(page, `modules.${i}.${f}`, m[f]);
      const row = await page.$eval(`#roofline-table tr[data-path="${m.path}"]`, (r) => [...r.cells].map((c) => c.textContent));
      assert.equal(row[0], m.path);
      assert.equal(Number(row[1].replaceAll(',', '')), Number(m.fwd_intensity.toFixed(1)));
      assert.equal(Number(row[2].replaceAll(',', '')), Number((m.fwd_flops_per_second / 1e12).toFixed(1)));
      assert.equal(row[4], m.bound);
    }
    await noBrokenFigures(page, '#roofline');
    await page.locator('#roofline').scrollIntoViewIfNeeded();
    await page.locator('#roofline').screenshot({ path: join(shots, `readable-roofline-${name}.png`) });
    await close(page);
  }
});

// ---- 7. Preset names in full ---------------------------------------------------------------------------

test('preset names in full: the preset takes its grid row, and a name still too long for it shows under the control', async () => {
  const long = 'Google Cloud TPU v4, one chip (2 TensorCores as one megacore device)';
  for (const [name, viewport] of SIZES) {
    const page = await open(env, '', { viewport });
    const row = await page.evaluate(() => {
      const field = document.querySelector('[data-field="hardware.preset"]');
      const grid = field.closest('.grid').getBoundingClientRect();
      return { field: field.getBoundingClientRect().width, grid: grid.width };
    });
    assert.ok(row.field >= row.grid - 1, `the device preset spans the grid row (${row.field} of ${row.grid})`);
    for (const preset of ['tpu-v4', 'mi250x', 'h100-sxm-80gb']) {
      await page.selectOption('#f-hardware-preset', preset);
      const full = await page.$eval('#f-hardware-preset', (s) => s.selectedOptions[0].textContent);
      // Whether the closed select shows the whole name, measured with the select's own font.
      const state = await page.evaluate(() => {
        const s = document.querySelector('#f-hardware-preset');
        const style = getComputedStyle(s);
        const ctx = document.createElement('canvas').getContext('2d');
        ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
        const note = document.querySelector('[data-name-for="hardware.preset"]');
        const r = note.getBoundingClientRect();
        return { fits: ctx.measureText(s.selectedOptions[0].textContent).width <= room, shown: !note.hidden && r.height > 0, text: note.textContent,
          inside: r.right <= window.innerWidth + 0.5, clipped: note.scrollWidth > note.clientWidth + 1 };
      });
      assert.ok(state.fits || state.shown, `${name} ${preset}: the full name "${full}" is visible (${JSON.stringify(state)})`);
      if (state.shown) {
        assert.equal(state.text, full);
        assert.ok(state.inside && !state.clipped, `${name} ${preset}: the name under the control wraps inside the page`);
      }
      if (preset === 'tpu-v4') {
        assert.ok(state.shown, `${name}: "${full}" is longer than any control and shows under it`);
        assert.equal(full, long);
        await page.locator('#section-hardware').screenshot({ path: join(shots, `readable-preset-name-${name}.png`) });
      }
      if (preset === 'h100-sxm-80gb') assert.equal(state.shown, false, `${name}: a name that fits is not repeated`);
    }
    await page.selectOption('#f-model-preset', 'megatron-530b');
    assert.ok(await page.evaluate(() => {
      const s = document.querySelector('#f-model-preset');
      const note = document.querySelector('[data-name-for="model.preset"]');
      return !note.hidden ? note.textContent === s.selectedOptions[0].textContent : true;
    }));
    await close(page);
  }
});
