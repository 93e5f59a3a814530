// A TPU plan in real Chromium: the BERT-base of XLA's BERT report (docs/sources.md) on a TPU v3 core opens from a
// link with the CLI's numbers and XLA's program (reserved, program, arguments; the largest allocations with shapes,
// tiled layouts and sizes); choosing a TPU in the form selects the xla framework the engine requires, and a GPU
// gives it back.
// Screenshots: artifacts/screenshots/tpu-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { DESKTOP, PHONE, belowDrawn, cli, cliReport, close, expectMetric, link, markdownOutput, open, scenario, shots, useBrowser } from './harness.mjs';

const env = useBrowser();

// The report's setting (tests/test_xla.cpp): no framework given, so the TPU's xla.
const XLA_BERT = {
  model: { preset: 'bert-base' },
  training: { seq_len: 512, micro_batch: 64, dtype: 'fp32', attention: 'eager', dropout: 0.1 },
  hardware: { preset: 'tpu-v3' },
};

test('XLA\'s BERT report from a link: XLA\'s program lines and largest allocations, as the CLI reports them', async () => {
  const report = cliReport(XLA_BERT);
  const x = report.memory.per_device.xla;
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(env, link(XLA_BERT), { viewport });
    await expectMetric(page, 'memory.per_device.total', report.memory.per_device.total);
    for (const key of ['program', 'arguments', 'reserved', 'total', 'saved_all', 'saved_floor', 'rematerialized'])
      await expectMetric(page, `memory.per_device.xla.${key}`, x[key]);
    assert.equal(await page.isVisible('#xla-section'), true);
    const rows = await page.$$eval('#xla .xla-largest tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.equal(rows.length, x.largest_allocations.length);
    assert.equal(rows[0][4], 'f32[64,12,512,512]{3,2,1,0:T(8,128)}');
    assert.equal(rows[0][3], '12');
    assert.deepEqual(rows.map((r) => r[6]), x.largest_allocations.map((a) => a.tensor));
    // The headline speaks of XLA's lines and of no allocator; the verdict is the engine's (an out-of-memory report).
    assert.equal(await page.getAttribute('[data-verdict]', 'data-verdict'), 'does_not_fit');
    assert.match(await page.textContent('#headline'), /program .* arguments .* runtime reserve/);
    assert.match(await page.textContent('#headline'), /as XLA compiles it/);
    assert.doesNotMatch(await page.textContent('#headline'), /fragmentation/);
    const overhead = await page.$$eval('#stage-table th', (ths) => ths.map((th) => th.title).find((t) => t.startsWith('outside the allocator')));
    assert.equal(overhead, 'outside the allocator: the TPU runtime\'s reserved HBM');
    // The Markdown export carries the list.
    const md = await markdownOutput(page);
    assert.match(md, /Largest program allocations\*\* \(XLA/);
    assert.match(md, /`f32\[64,12,512,512\]\{3,2,1,0:T\(8,128\)\}`/);
    await page.locator('#xla-section').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `tpu-xla-bert-${viewport.width}.png`), fullPage: false });
    await close(page);
  }
});

test('XLA\'s BERT report, the kernel table: XLA\'s rematerialization recomputed in backward, as `shardcalc kernels` prints it', async () => {
  const kernels = JSON.parse(execFileSync(cli, ['kernels', '-', '--format', 'json'], { input: JSON.stringify(XLA_BERT) }));
  const recompute = kernels.rows.filter((r) => r.pass === 'recompute');
  assert.ok(recompute.length > 0, 'the rematerialized share of the layers\' forward runs again');
  const page = await open(env, link(XLA_BERT));
  await belowDrawn(page);
  await page.locator('#kernels summary').click();
  await page.waitForSelector('#kernels[data-state="drawn"]', { timeout: 30000 });
  const rows = await page.$$eval('#kernel-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.equal(rows.length, kernels.rows.length);
  assert.equal(rows.filter((r) => r[2] === 'recompute').length, recompute.length);
  await close(page);
});

test('choosing a TPU selects the xla framework; a GPU gives the GPU frameworks back; GPU plans show no XLA section', async () => {
  const page = await open(env, '');
  assert.equal(await page.isVisible('#xla-section'), false, 'the default GPU plan has no XLA section');
  await page.selectOption('#f-hardware-preset', 'tpu-v5p');
  await page.waitForFunction(() => document.querySelector('#f-framework')?.value === 'xla');
  // The default plan's sequence parallelism is not modelled under xla: the choice turns it off and says so.
  await page.waitForSelector('#xla-section:not([hidden])');
  assert.equal(await page.isChecked('#f-parallel-sp'), false);
  assert.match(await page.textContent('#adapt-note'), /Framework megatron → xla \(the device does not run megatron\); Sequence parallel \(sp\) on → off \(under xla shardcalc models data and tensor \(model\) parallelism only\)\. Undo$/);
  assert.equal(await page.locator('.field-error').count(), 0);
  // The framework menu offers only what the engine accepts on a TPU.
  await page.waitForFunction(() => [...document.querySelector('#f-framework').options].some((o) => o.value === 'megatron' && o.disabled));
  const disabled = await page.$eval('#f-framework', (s) => [...s.options].filter((o) => o.disabled).map((o) => o.value));
  assert.deepEqual(disabled.sort(), ['deepspeed', 'fsdp', 'megatron', 'pytorch']);
  await page.screenshot({ path: join(shots, 'tpu-chosen-1440.png'), fullPage: false });
  await page.selectOption('#f-hardware-preset', 'h100-sxm-80gb');
  await page.waitForFunction(() => document.querySelector('#f-framework')?.value === 'megatron');
  await page.waitForSelector('#xla-section[hidden]', { state: 'attached' });
  await close(page);
});

test('a TPU chosen for a plan with several dimensions xla does not model names the reason once, after all of them', async () => {
  const page = await open(env, link(scenario({ 'parallel.dp': 1, 'parallel.pp': 2 })));
  await page.selectOption('#f-hardware-preset', 'tpu-v5p');
  await page.waitForFunction(() => document.querySelector('#f-framework')?.value === 'xla');
  await page.waitForSelector('#status[data-state="ready"]');
  const note = await page.textContent('#adapt-note');
  // Pipeline and sequence parallelism both move for the engine's one reason: it is said once, after both; data
  // parallelism then keeps the 8 devices.
  assert.equal(note, 'Adapted to your choice: Framework megatron → xla (the device does not run megatron); ' +
    'Pipeline parallel (pp) 2 → 1, Sequence parallel (sp) on → off (under xla shardcalc models data and tensor (model) parallelism only); ' +
    'Data parallel (dp) 1 → 2 (keeps the plan on 8 devices). Undo');
  await close(page);
});
