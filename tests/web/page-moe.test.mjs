// Mixture-of-experts plans in real Chromium: a MoE preset with expert parallelism shows the same numbers as
// the CLI (memory, active parameters, the expert all-to-all rows of the communication table, the expert
// parts of the step), the expert fields sit in the form with help, and the ep stepper only offers values
// the plan allows. Screenshots: artifacts/screenshots/moe-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DESKTOP, PHONE, cliErrors, cliReport, close, expectMetric, link, open, shots, useBrowser } from './harness.mjs';

const env = useBrowser();

// Mixtral 8x7B on 64 GPUs: dp 16, tp 4 with sp, ep 8 (etp = tp), Megatron's distributed optimizer.
const MIXTRAL = {
  framework: 'megatron',
  model: { preset: 'mixtral-8x7b' },
  training: { seq_len: 4096, micro_batch: 1, global_batch: 256, recompute: 'selective' },
  parallel: { dp: 16, tp: 4, sp: true, pp: 1, ep: 8, distributed_optimizer: true },
  hardware: { preset: 'h100-sxm-80gb' },
};

test('a MoE plan with expert parallelism: the CLI\'s numbers, active parameters, expert all-to-all rows', async () => {
  const report = cliReport(MIXTRAL);
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(env, link(MIXTRAL), { viewport });
    await expectMetric(page, 'memory.per_device.total', report.memory.per_device.total);
    await expectMetric(page, 'parameters.total', report.parameters.total);
    await expectMetric(page, 'parameters.active', report.parameters.active);
    assert.ok(report.parameters.active < report.parameters.total / 3, 'top-2 of 8 experts');
    // Every communication row of the engine, the expert dimensions among them.
    const ep = report.communication.filter((c) => c.dimension === 'ep');
    assert.ok(ep.some((c) => c.collective === 'all-to-all' && /tokens to their experts/.test(c.purpose)), 'the dispatch all-to-all');
    assert.ok(report.communication.some((c) => c.dimension === 'edp'), 'the expert gradient reduction');
    const shownEp = await page.$$eval('#comm-table tbody[data-dimension="ep"] td.purpose', (tds) => tds.map((t) => t.textContent));
    assert.deepEqual(shownEp, ep.filter((c) => c.volume_per_iteration > 0 || c.exposed_seconds > 0).map((c) => c.purpose));
    assert.equal(await page.locator('#comm-table tbody[data-dimension="edp"]').count(), 1);
    // The step's expert all-to-all part, labelled.
    assert.ok(report.time.breakdown.ep_exposed > 0);
    assert.match(await page.locator('#time-table').textContent(), /Expert all-to-all \(exposed\)/);
    // The plan line names ep.
    assert.match(await page.locator('#headline .plan').textContent(), /ep 8/);
    await page.screenshot({ path: join(shots, `moe-mixtral-${viewport.width}.png`), fullPage: false });
    if (viewport === DESKTOP) await page.locator('#comm-table').screenshot({ path: join(shots, 'moe-comm-table.png') });
    await close(page);
  }
});

test('the expert fields are in the form with help, and ep steps through the values the plan allows', async () => {
  const page = await open(env, link(MIXTRAL));
  for (const id of ['f-model-experts', 'f-model-experts_per_token', 'f-parallel-ep']) assert.ok(await page.isVisible(`#${id}`), id);
  // The preset's values as placeholders (the engine's resolved scenario).
  assert.equal(await page.getAttribute('#f-model-experts', 'placeholder'), '8');
  assert.equal(await page.inputValue('#f-parallel-ep'), '8');
  await page.click('[data-field="parallel.ep"] .help-toggle');
  await page.waitForSelector('#f-parallel-ep-help', { state: 'visible', timeout: 5000 });
  assert.match(await page.textContent('#f-parallel-ep-help'), /all-to-all/);
  assert.equal(await page.getAttribute('#f-parallel-ep-help a', 'href'), 'docs/memory.html#mixture-of-experts-and-expert-parallelism');
  // ep must divide the 8 experts and fit with etp = 4 into the 64 non-pipeline ranks: down from 8 is 4, up is nothing.
  await page.focus('#f-parallel-ep');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.querySelector('#f-parallel-ep').value === '4');
  await expectMetric(page, 'memory.per_device.total',
    cliReport({ ...MIXTRAL, parallel: { ...MIXTRAL.parallel, ep: 4 } }).memory.per_device.total);
  // A value that does not divide the experts: the engine's error at the field, with the values that work.
  await page.fill('#f-parallel-ep', '3');
  await page.waitForSelector('#status[data-state="error"]');
  const expected = cliErrors({ ...MIXTRAL, parallel: { ...MIXTRAL.parallel, ep: 3 } });
  assert.equal(expected[0].path, '/parallel/ep');
  assert.equal(await page.locator('.field-error[data-error-for="/parallel/ep"]').first().textContent(), expected[0].message);
  await page.locator('#section-parallel').screenshot({ path: join(shots, 'moe-ep-error.png') });
  await close(page);
});

// gpt-oss-120b as Megatron-Bridge's H100 recipe runs it: selective recompute of the norms and expert activations.
const GPT_OSS = {
  framework: 'megatron',
  model: { preset: 'gpt-oss-120b' },
  training: { seq_len: 4096, micro_batch: 1, global_batch: 1280, recompute: 'selective', recompute_modules: ['layernorm', 'moe_act'] },
  parallel: { dp: 16, tp: 1, pp: 4, ep: 8, distributed_optimizer: true },
  hardware: { preset: 'h100-sxm-80gb' },
};

test('recompute modules: a link\'s list shows in its field, an edited list is the CLI\'s plan, a bad name is named', async () => {
  const page = await open(env, link(GPT_OSS));
  const field = page.locator('#f-training-recompute_modules');
  assert.equal(await field.inputValue(), 'layernorm,moe_act');
  assert.ok(await field.isVisible(), 'the "More" group opens for a field the link sets');
  await expectMetric(page, 'memory.stages.0.activations', cliReport(GPT_OSS).memory.stages[0].activations);
  // The whole MoE layer instead: less kept, the expert all-to-alls again in backward.
  const moe = { ...GPT_OSS, training: { ...GPT_OSS.training, recompute_modules: ['moe'] } };
  await field.fill('moe');
  await field.press('Tab');
  await page.waitForFunction(() => decodeURIComponent(window.location.hash).includes('training.recompute_modules=moe'));
  await expectMetric(page, 'memory.stages.0.activations', cliReport(moe).memory.stages[0].activations);
  await field.fill('moe, attn');
  await field.press('Tab');
  await page.waitForSelector('#status[data-state="error"]');
  assert.match(await page.locator('#engine-error li').first().textContent(), /must be one of core_attn\|layernorm\|mlp\|moe_act\|moe\|shared_experts/);
  await close(page);
});
