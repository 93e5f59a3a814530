// "Find a plan" works on the first try, in real Chromium: the panel starts from the form (devices = the plan's
// world size as the engine reports it, the form's global batch) and follows it until the reader sets them; the
// framework boxes follow the form and the device (a TPU runs only xla, with the engine's reason); the plans that
// lost are explained in the engine's words; Load keeps the reader's batch (and says when the search used another);
// each row carries the engine's launch lines with Copy and Download. Every figure is compared with the CLI's.
// Screenshots: artifacts/screenshots/search-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULTS, cli, cliReport, close, link, open, root, scenario as plan, shots, useBrowser } from './harness.mjs';
import { bytes, duration, large, percent } from '../../web/src/js/format.js';

const env = useBrowser();

// The engine's own answers to compare with: its search (the CLI) and its field choices (the whole engine in Node).
const cliSearch = (s) => JSON.parse(execFileSync(cli, ['search', '--format', 'json', '-'], { input: JSON.stringify(s) }));
const wasmDir = join(root, 'build-wasm', 'wasm');
const { default: createShardcalc } = await import(join(wasmDir, 'shardcalc.mjs'));
const engine = await createShardcalc({ wasmBinary: await readFile(join(wasmDir, 'shardcalc.wasm')) });
const FRAMEWORKS = ['megatron', 'deepspeed', 'fsdp', 'pytorch', 'xla'];
const frameworkChoices = (s) => JSON.parse(engine.choices(JSON.stringify({ scenario: s, options: { '/framework': FRAMEWORKS } }))).options['/framework'];

// The search object the page sends for the panel's defaults and these settings.
const settings = (s) => ({ question: 'best_plan', rank_by: 'step_time', frameworks: ['megatron'], tp_within_node: true, memory_margin: 0, top: 20, ...s });

// Brings the panel into view (its code is fetched then) and waits until it shows `devices` and `batch`.
async function panelShows(page, devices, batch) {
  await page.locator('#search-section').scrollIntoViewIfNeeded();
  try {
    await page.waitForFunction(([d, b]) => document.querySelector('#s-devices').value === d && document.querySelector('#s-batch').value === b,
      [String(devices), String(batch)], { timeout: 5000 });
  } catch {
    assert.fail(`the panel shows devices "${await page.inputValue('#s-devices')}" and batch "${await page.inputValue('#s-batch')}", ` +
      `expected "${devices}" and "${batch}"`);
  }
}

async function search(page) {
  const before = await page.evaluate(() => document.body.dataset.searchDone || '');
  await page.click('#s-run');
  await page.waitForFunction((b) => (document.body.dataset.searchDone || '') !== b || /could not run/.test(document.querySelector('#s-status').textContent),
    before, { timeout: 30000 });
  return page.textContent('#s-status');
}

const checked = (page) => page.$$eval('.search-form fieldset input', (es) => es.map((e) => `${e.id.slice(5)}${e.checked ? '+' : ''}${e.disabled ? '-' : ''}`).join(' '));

test('the panel starts from the form (the plan\'s world size, its global batch) and follows it until the reader sets them', async () => {
  const page = await open(env);
  const report = cliReport(DEFAULTS);
  assert.equal(report.derived.world_size, 8);
  await panelShows(page, report.derived.world_size, report.scenario.training.global_batch);
  // The first click on Search runs the search the CLI runs for this plan.
  const status = await search(page);
  const found = cliSearch({ ...DEFAULTS, search: settings({ devices: 8, global_batch: 64 }) });
  assert.match(status, new RegExp(`^${found.counts.candidates.toLocaleString('en-US')} plans on 8 devices: ${found.counts.fitting.toLocaleString('en-US')} fit`));
  // The form changes: the panel follows it, from the engine's report.
  await page.fill('#f-parallel-dp', '4');
  await panelShows(page, cliReport(plan({ 'parallel.dp': 4 })).derived.world_size, 64);
  await page.fill('#f-training-global_batch', '128');
  await panelShows(page, 16, 128);
  // The reader sets the devices: they stay; the batch, not set, still follows the form.
  await page.fill('#s-devices', '8-32');
  await page.fill('#f-parallel-dp', '2');
  await page.fill('#f-training-global_batch', '64');
  await panelShows(page, '8-32', 64);
  // Emptied, the field follows the form again at its next answer.
  await page.fill('#s-devices', '');
  await page.fill('#f-parallel-tp', '8');
  await panelShows(page, 16, 64);
  await page.locator('#search-section').screenshot({ path: join(shots, 'search-panel.png') });
  await close(page);
});

test('a shared link\'s search settings win over the form\'s; the link shows them and runs them on a click', async () => {
  const page = await open(env, `#v=2&search=${encodeURIComponent(JSON.stringify({ devices: 16, global_batch: 32 }))}`);
  // Shown, not started: a link may carry a search of minutes, and nobody asked for it yet.
  await page.waitForFunction(() => /This link carries a plan search/.test(document.querySelector('#s-status').textContent));
  await panelShows(page, 16, 32);
  assert.equal(await page.evaluate(() => document.body.dataset.searchDone), undefined);
  assert.equal(await page.locator('#s-table tbody tr').count(), 0);
  await page.click('#s-run');
  await page.waitForFunction(() => document.body.dataset.searchDone, null, { timeout: 30000 });
  await panelShows(page, 16, 32);
  assert.match(await page.textContent('#s-status'), /plans on 16 devices/);
  await page.fill('#f-parallel-dp', '4');
  await page.waitForFunction(() => document.querySelector('[data-metric="memory.per_device.total"]')?.closest('body')
    && document.querySelector('#status').dataset.state === 'ready' && new URL(location.href).hash.includes('parallel.dp=4'));
  await panelShows(page, 16, 32);
  await close(page);
});

test('the framework boxes follow the form; a TPU refuses all but xla, each with the engine\'s reason, and nothing is searched in vain', async () => {
  const page = await open(env);
  await panelShows(page, 8, 64);
  await page.waitForFunction(() => document.querySelector('#s-fw-xla').disabled);
  assert.equal(await checked(page), 'megatron+ deepspeed fsdp pytorch xla-');
  const gpuReason = frameworkChoices(DEFAULTS).find((o) => o.value === 'xla').reason;
  assert.equal(await page.getAttribute('label:has(#s-fw-xla)', 'title'), `Not on this device: ${gpuReason}`);
  // The form's framework moves: so does the box.
  await page.selectOption('#f-framework', 'fsdp');
  await page.waitForFunction(() => document.querySelector('#s-fw-fsdp').checked);
  assert.equal(await checked(page), 'megatron deepspeed fsdp+ pytorch xla-');
  await page.selectOption('#f-framework', 'megatron');
  // A TPU: the form moves to xla; the panel checks xla and refuses the GPU frameworks with the engine's reasons.
  await page.selectOption('#f-hardware-preset', 'tpu-v5p');
  await page.waitForFunction(() => document.querySelector('#s-fw-xla').checked && document.querySelector('#s-fw-megatron').disabled);
  assert.equal(await checked(page), 'megatron- deepspeed- fsdp- pytorch- xla+');
  const tpu = plan({ 'hardware.preset': 'tpu-v5p', framework: 'xla' });
  const reasons = frameworkChoices(tpu).filter((o) => !o.valid);
  assert.equal(reasons.length, 4);
  for (const { value, reason } of reasons) {
    assert.match(reason, /^a TPU \(tpu-v5p\) runs programs compiled by XLA/);
    assert.equal(await page.getAttribute(`label:has(#s-fw-${value})`, 'title'), `Not on this device: ${reason}`);
    assert.ok((await page.textContent('#s-fw-note')).includes(reason), `the note under the boxes says why ${value} is refused`);
  }
  // The default plan's sequence parallelism is not modelled under xla (page-tpu.test.mjs): off, the plan is the engine's.
  await page.locator('#f-parallel-sp').uncheck().catch(async () => page.selectOption('#f-parallel-sp', 'false'));
  await page.waitForSelector('#xla-section:not([hidden])');
  const tpuPlan = plan({ 'parallel.sp': false }, tpu);
  const world = cliReport(tpuPlan).derived.world_size;
  await panelShows(page, world, 64);
  const status = await search(page);
  const found = cliSearch({ ...tpuPlan, search: settings({ devices: world, global_batch: 64, frameworks: ['xla'] }) });
  assert.equal(found.counts.invalid, 0);
  assert.match(status, / 0 invalid/);
  assert.match(status, new RegExp(`^${found.counts.candidates.toLocaleString('en-US')} plans on ${world} devices`));
  assert.deepEqual([...new Set(await page.$$eval('#s-table tbody tr[data-rank] td:nth-child(2)', (ts) => ts.map((t) => t.textContent)))], ['xla']);
  await page.locator('#search-section').screenshot({ path: join(shots, 'search-tpu.png') });
  // Back on a GPU: megatron again, xla refused.
  await page.selectOption('#f-hardware-preset', 'h100-sxm-80gb');
  await page.waitForFunction(() => document.querySelector('#s-fw-megatron').checked && document.querySelector('#s-fw-xla').disabled);
  assert.equal(await checked(page), 'megatron+ deepspeed fsdp pytorch xla-');
  await close(page);
});

test('the plans that lost are explained in the engine\'s words: invalid with their field, those that do not fit, those skipped', async () => {
  const page = await open(env);
  await panelShows(page, 8, 64);
  await page.fill('#s-batch', '8');
  const status = await search(page);
  const found = cliSearch({ ...DEFAULTS, search: settings({ devices: 8, global_batch: 8 }) });
  const { invalid, does_not_fit: dnf, pruned } = found.rejected;
  assert.ok(invalid.count > 0 && dnf.count > 0 && pruned.count > 0, 'this search rejects plans of every kind');
  assert.match(status, new RegExp(`${invalid.count.toLocaleString('en-US')} invalid`));
  const item = (kind) => page.textContent(`#s-why > li[data-kind="${kind}"]`);
  const invalidText = await item('invalid');
  assert.ok(invalidText.startsWith(`${invalid.count.toLocaleString('en-US')} invalid`), invalidText);
  for (const e of invalid.examples) {
    assert.equal(e.path, '/training/global_batch');
    assert.ok(invalidText.includes(`Global batch: ${e.reason}`), `the invalid plans' reason in words: ${e.reason}`);
  }
  const dnfText = await item('does_not_fit');
  assert.ok(dnfText.startsWith(`${dnf.count.toLocaleString('en-US')} do not fit`), dnfText);
  for (const e of dnf.examples) assert.ok(dnfText.includes(e.reason), `the closest plans' reason: ${e.reason}`);
  const prunedText = await item('pruned');
  for (const e of pruned.examples) assert.ok(prunedText.includes(e.reason), `why plans were skipped: ${e.reason}`);
  await page.locator('#search-section').screenshot({ path: join(shots, 'search-why.png') });
  await close(page);
});

test('Load keeps the reader\'s global batch, and says so when the search used another', async () => {
  // Llama 3.1 70B on 64 H100s with 512 samples a step.
  const s70 = plan({ 'model.preset': 'llama-3.1-70b', 'training.global_batch': 512, 'parallel.dp': 2, 'parallel.tp': 8, 'parallel.pp': 4 });
  const report = cliReport(s70);
  assert.equal(report.derived.world_size, 64);
  const page = await open(env, link(s70));
  await panelShows(page, 64, 512);
  await search(page);
  const found = cliSearch({ ...s70, search: settings({ devices: 64, global_batch: 512 }) });
  const firstRow = page.locator('#s-table tbody tr[data-rank="1"]');
  assert.equal(await firstRow.locator('td').nth(7).textContent(), duration(found.plans[0].time.step_seconds));
  await firstRow.locator('button.load-plan').click();
  await page.waitForFunction((tp) => document.querySelector('#f-parallel-tp').value === String(tp), found.plans[0].parallel.tp);
  assert.equal(await page.inputValue('#f-training-global_batch'), '512');
  assert.equal(await page.textContent('#s-note'), 'Loaded plan #1.');
  // The reader searches with another batch: Load takes it, and says so next to the table.
  await page.fill('#s-batch', '256');
  await search(page);
  const with256 = cliSearch({ ...s70, search: settings({ devices: 64, global_batch: 256 }) });
  const third = page.locator('#s-table tbody tr[data-rank="3"]');
  await third.locator('button.load-plan').click();
  await page.waitForFunction((tp) => document.querySelector('#f-parallel-tp').value === String(tp), with256.plans[2].parallel.tp);
  assert.equal(await page.inputValue('#f-training-global_batch'), '256');
  assert.equal(await page.textContent('#s-note'), 'Loaded plan #3: global batch 512 → 256 as searched.');
  await close(page);
});

test('the table and the Pareto chart read in the page\'s formats and unit; the chart\'s axis titles clear its ticks', async () => {
  const page = await open(env);
  await panelShows(page, 8, 64);
  await search(page);
  const found = cliSearch({ ...DEFAULTS, search: settings({ devices: 8, global_batch: 64 }) });
  // One format per quantity on the whole page: the summary's and the stage table's (format.js), not the table's own.
  const row = async (unit) => {
    const head = await page.$$eval('#s-table thead th', (ts) => ts.map((t) => t.textContent));
    const cells = await page.locator('#s-table tbody tr[data-rank="1"] td').allTextContents();
    return { head: [head[6], head[7], head[8]], cells: cells.slice(6, 10), unit };
  };
  const p = found.plans[0];
  const expect = (unit) => ({ head: [`Peak (${unit})`, 'Step', 'MFU'], unit,
    cells: [bytes(p.memory.peak_bytes, unit), duration(p.time.step_seconds), percent(p.time.mfu), large(p.time.tokens_per_second)] });
  assert.deepEqual(await row('GiB'), expect('GiB'));
  assert.equal(await page.textContent('#summary [data-summary-metric="time.step_seconds"]'), duration(cliReport(DEFAULTS).time.step_seconds),
    'the summary shows step time in the same format');
  // The reader's unit moves the table and the chart with the rest of the page.
  await page.selectOption('#unit', 'GB');
  await page.waitForFunction(() => document.querySelector('#s-table thead th:nth-child(7)').textContent === 'Peak (GB)');
  assert.deepEqual(await row('GB'), expect('GB'));
  assert.equal(await page.textContent('#s-pareto .axis-label'), 'peak memory per device (GB)');
  // No axis title overlaps a tick label; every plan is drawn inside the axes.
  const chart = await page.$eval('#s-pareto svg', (svg) => {
    const box = (e) => { const b = e.getBBox(); return { x: b.x, y: b.y, r: b.x + b.width, b: b.y + b.height, text: e.textContent }; };
    const axes = [...svg.querySelectorAll('line.axis')].map((l) => ({ x1: +l.getAttribute('x1'), x2: +l.getAttribute('x2'), y1: +l.getAttribute('y1'), y2: +l.getAttribute('y2') }));
    return { titles: [...svg.querySelectorAll('.axis-label')].map(box), ticks: [...svg.querySelectorAll('.tick')].map(box), axes,
      dots: [...svg.querySelectorAll('circle')].map((c) => [+c.getAttribute('cx'), +c.getAttribute('cy')]) };
  });
  const overlap = (a, b) => a.x < b.r && b.x < a.r && a.y < b.b && b.y < a.b;
  for (const t of chart.titles) {
    for (const k of chart.ticks) assert.ok(!overlap(t, k), `axis title "${t.text}" overlaps tick "${k.text}"`);
  }
  const [xAxis, yAxis] = chart.axes;
  for (const [x, y] of chart.dots) {
    assert.ok(x >= xAxis.x1 && x <= xAxis.x2 && y >= yAxis.y1 && y <= yAxis.y2, `a plan at (${x}, ${y}) is outside the axes`);
  }
  assert.ok(chart.ticks.length >= 4, 'both axes carry ticks');
  await page.locator('#s-pareto').screenshot({ path: join(shots, 'search-pareto.png') });
  await close(page);
});

test('each row\'s launch lines, as the engine gives them, with Copy and Download', async () => {
  const page = await open(env);
  await panelShows(page, 8, 64);
  // Megatron-LM's plans first (the form's framework), then DeepSpeed's alone: on 8 GPUs Megatron's own plans,
  // Megatron-FSDP's among them, fill the first 20 rows.
  const found = (frameworks) => cliSearch({ ...DEFAULTS, search: settings({ devices: 8, global_batch: 64, frameworks }) });
  await search(page);
  const mg = found(['megatron']).plans.find((p) => p.framework === 'megatron');
  const opened = async (p) => {
    const row = page.locator(`#s-launch-${p.rank}`);
    assert.equal(await row.isVisible(), false, 'closed until asked for');
    await page.click(`#s-table tr[data-rank="${p.rank}"] button.launch-plan`);
    assert.equal(await row.isVisible(), true);
    assert.equal(await page.getAttribute(`#s-table tr[data-rank="${p.rank}"] button.launch-plan`, 'aria-expanded'), 'true');
    const shown = await row.locator('.launch-tool').evaluateAll((ts) => ts.map((t) => ({ tool: t.dataset.tool, text: t.querySelector('pre').textContent })));
    assert.deepEqual(shown, p.launch.map((l) => ({ tool: l.tool, text: `${l.lines.join('\n')}\n` })));
  };
  assert.ok(mg, 'a Megatron-LM plan is listed');
  await opened(mg);
  // Copy: the tool's lines on the clipboard, and the note says so.
  const megatronArgs = page.locator(`#s-launch-${mg.rank} .launch-tool`).nth(1);
  await megatronArgs.locator('button.launch-copy').click();
  await page.waitForFunction(() => /^Copied/.test(document.querySelector('#s-note').textContent));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${mg.launch[1].lines.join('\n')}\n`);
  // Download: a file named for the tool, holding its lines.
  const downloaded = async (tool) => {
    const [file] = await Promise.all([page.waitForEvent('download'), tool.locator('button.launch-download').click()]);
    return { name: file.suggestedFilename(), text: await readFile(await file.path(), 'utf8') };
  };
  const args = await downloaded(megatronArgs);
  assert.deepEqual(args, { name: 'megatron-lm-args.sh', text: `${mg.launch[1].lines.join('\n')}\n` });
  await page.uncheck('#s-fw-megatron');
  await page.check('#s-fw-deepspeed');
  await search(page);
  const ds = found(['deepspeed']).plans.find((p) => p.framework === 'deepspeed');
  assert.ok(ds, 'a DeepSpeed plan is listed');
  await opened(ds);
  const config = await downloaded(page.locator(`#s-launch-${ds.rank} .launch-tool[data-tool="DeepSpeed config (ds_config.json)"]`));
  assert.equal(config.name, 'ds_config.json');
  assert.equal(JSON.parse(config.text).train_batch_size, 64);
  await page.locator('#search-section').screenshot({ path: join(shots, 'search-launch.png') });
  await close(page);
});

test('"Launch this plan": the launch lines of the plan in the form, as the engine gives them, again when it changes, or why there are none', async () => {
  const launchOf = (s) => JSON.parse(engine.launch(JSON.stringify(s), 'all'));
  const shown = (page) => page.locator('#launch-plan .launch-tool').evaluateAll((ts) => ts.map((t) => ({ tool: t.dataset.tool, text: t.querySelector('pre').textContent })));
  const expected = (s) => launchOf(s).launch.map((l) => ({ tool: l.tool, text: `${l.lines.join('\n')}\n` }));
  const page = await open(env);
  await page.click('#launch-plan summary');
  await page.waitForSelector('#launch-plan .launch-tool');
  assert.deepEqual(await shown(page), expected(DEFAULTS));
  assert.ok((await shown(page)).some((t) => t.text.includes('--tensor-model-parallel-size 4')), 'the form\'s tp, as the engine writes it');
  // Another framework: its tools (Megatron-DeepSpeed and its ds_config.json), to download.
  const ds = plan({ framework: 'deepspeed' });
  await page.selectOption('#f-framework', 'deepspeed');
  await page.waitForSelector('#launch-plan .launch-tool[data-tool="DeepSpeed config (ds_config.json)"]');
  await page.waitForSelector('#status[data-state="ready"]');
  assert.deepEqual(await shown(page), expected(ds));
  const [file] = await Promise.all([page.waitForEvent('download'),
    page.click('#launch-plan .launch-tool[data-tool="DeepSpeed config (ds_config.json)"] button.launch-download')]);
  assert.equal(file.suggestedFilename(), 'ds_config.json');
  assert.equal(JSON.parse(await readFile(await file.path(), 'utf8')).train_batch_size, 64);
  // A plan the engine refuses: no lines, and why, in words.
  await page.fill('#f-parallel-tp', '3');
  await page.waitForSelector('#status[data-state="error"]');
  await page.waitForFunction(() => /^No launch lines for this plan: /.test(document.querySelector('#launch-plan .message').textContent));
  const refusal = launchOf(plan({ framework: 'deepspeed', 'parallel.tp': 3 }));
  assert.equal(refusal.ok, false);
  assert.match(await page.textContent('#launch-plan .message'), /Tensor parallel \(tp\): /);
  assert.equal(await page.locator('#launch-plan .launch-tool').count(), 0);
  await page.locator('.share').screenshot({ path: join(shots, 'search-launch-plan.png') });
  await close(page);
});

test('a row\'s Launch and "Launch this plan" agree once the row is loaded into the form', async () => {
  const page = await open(env);
  await panelShows(page, 8, 64);
  await search(page);
  await page.click('#s-table tr[data-rank="1"] button.launch-plan');
  const rowLines = await page.locator('#s-launch-1 pre').allTextContents();
  await page.click('#s-table tr[data-rank="1"] button.load-plan');
  await page.click('#launch-plan summary');
  try {
    await page.waitForFunction((lines) => JSON.stringify([...document.querySelectorAll('#launch-plan pre')].map((p) => p.textContent)) === JSON.stringify(lines),
      rowLines, { timeout: 10000 });
  } catch {
    assert.deepEqual(await page.locator('#launch-plan pre').allTextContents(), rowLines);
  }
  await close(page);
});

// With more than one core the worker runs a search in parts side by side: helper workers of its own, started by the
// first search and used once they have loaded the engine (engine-worker.js). The split search's answer is the CLI's on
// as many threads (engine/search/search.h SearchPart: the plans and figures of one search; the plans timed follow the
// split), and its first plan's figures are shown as the CLI gives them.
test('a search runs in parts on the worker\'s helpers, with the answer of the CLI on as many threads', async () => {
  const page = await open(env);
  await panelShows(page, 8, 64);
  await page.fill('#s-devices', '8-64');
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const expected = Math.min(cores, 4);
  await search(page);
  let parts = '1';
  for (let tries = 0; tries < 20 && parts !== String(expected); tries += 1) { // the helpers load the engine meanwhile
    await page.waitForTimeout(250);
    await search(page);
    parts = await page.evaluate(() => document.body.dataset.searchParts);
  }
  assert.equal(parts, String(expected), `a search on ${cores} cores runs in ${expected} parts`);
  const s = { ...DEFAULTS, search: settings({ devices: { min: 8, max: 64 }, global_batch: 64 }) };
  const found = JSON.parse(execFileSync(cli, ['search', '--format', 'json', '--threads', parts, '-'], { input: JSON.stringify(s) }));
  assert.equal(found.parts, expected);
  const c = found.counts;
  assert.match(await page.textContent('#s-status'), new RegExp(`^${c.candidates.toLocaleString('en-US')} plans on 8, 16, 32, 64 devices: ${c.fitting.toLocaleString('en-US')} fit`));
  const ranked = await page.$$eval('#s-table tbody tr[data-rank]', (rows) => rows.length);
  assert.equal(ranked, found.plans.length);
  const cells = await page.locator('#s-table tbody tr[data-rank="1"] td').allTextContents();
  const p = found.plans[0];
  assert.deepEqual(cells.slice(6, 10), [bytes(p.memory.peak_bytes, 'GiB'), duration(p.time.step_seconds), percent(p.time.mfu), large(p.time.tokens_per_second)]);
  await close(page);
});
