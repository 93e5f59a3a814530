// The per-kernel table and LSTM models in real Chromium: DeepFlow's 38B LSTM (docs/sources.md) opens from a link
// with the CLI's numbers; the "Kernels" section, opened, shows the rows `shardcalc kernels` prints (computed by the
// whole engine in the worker), and follows an edit. Screenshots: artifacts/screenshots/kernels-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { DESKTOP, PHONE, belowDrawn, cli, cliReport, close, expectMetric, link, open, shots, useBrowser } from './harness.mjs';

const env = useBrowser();

// examples/deepflow-lstm-38b.json
const LSTM = {
  framework: 'pytorch',
  model: { preset: 'deepflow-lstm-38b' },
  training: { seq_len: 20, micro_batch: 512, dtype: 'fp32', optimizer: 'sgd', grad_clip: true },
  hardware: { preset: 'deepflow-300w' },
  implementation: { rnn: 'unrolled' },
};

const LLAMA = {
  framework: 'megatron',
  model: { preset: 'llama-3.1-8b' },
  training: { seq_len: 8192, micro_batch: 1, global_batch: 64, recompute: 'selective' },
  parallel: { dp: 2, tp: 2, pp: 2, sp: true },
  hardware: { preset: 'h100-sxm-80gb' },
};

const cliKernels = (s) => JSON.parse(execFileSync(cli, ['kernels', '-', '--format', 'json'], { input: JSON.stringify(s) }));

async function openKernels(page) {
  await belowDrawn(page);
  await page.locator('#kernels summary').click();
  await page.waitForSelector('#kernels[data-state="drawn"]', { timeout: 30000 });
}

test('an LSTM from a link: the CLI\'s numbers, and its kernel table as `shardcalc kernels` prints it', async () => {
  const report = cliReport(LSTM);
  const kernels = cliKernels(LSTM);
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(env, link(LSTM), { viewport });
    await expectMetric(page, 'memory.per_device.total', report.memory.per_device.total);
    await expectMetric(page, 'parameters.total', report.parameters.total);
    await openKernels(page);
    const rows = await page.$$eval('#kernel-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.equal(rows.length, kernels.rows.length);
    assert.deepEqual(rows.map((r) => [r[0], r[1]]), kernels.rows.map((r) => [r.module, r.kernel]));
    // The gate GEMM forward: DeepFlow's Cf, 512 x 39936 x 79872, read 156 times for A from HBM, 39 times from L2.
    const gates = rows.find((r) => r[0] === 'lstm/gates' && r[1] === 'gemm' && r[2] === 'forward');
    assert.equal(gates[3], '40');
    assert.equal(gates[4], '512 × 39,936 × 79,872');
    assert.equal(gates[6], '25,681.72');
    assert.equal(gates[8], '156, 1, 1');
    assert.equal(gates[9], '39, 1, 1');
    assert.equal(gates[11], 'compute');
    assert.match(await page.textContent('#kernels-caption'), /inflection point 4\.0 FLOP\/byte/);
    assert.equal(await page.isVisible('#kernels-stage'), false, 'one stage: no picker');
    assert.match(await page.textContent('#kernels-caption'), /^Pipeline stage 0 \(the only stage\) on /);
    assert.match(await page.textContent('#kernels-caption'), new RegExp(`all kernels ${Math.round(kernels.step_seconds)} s`));
    await page.locator('#kernels').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `kernels-lstm-${viewport.width}.png`), fullPage: false });
    await close(page);
  }
});

test('the kernel table of a pipelined plan follows an edit, and the LSTM fields have help', async () => {
  const page = await open(env, link(LLAMA));
  await openKernels(page);
  const before = await page.$$eval('#kernel-table tbody tr', (trs) => trs.length);
  assert.equal(before, cliKernels(LLAMA).rows.length);
  assert.match(await page.textContent('#kernels-caption'), /^Pipeline stage 1 \(stages 0 to 1\)/);
  // Full recompute adds the recompute pass's rows.
  const edited = { ...LLAMA, training: { ...LLAMA.training, recompute: 'full' } };
  await page.selectOption('#f-training-recompute', 'full');
  await page.waitForFunction((n) => document.querySelectorAll('#kernel-table tbody tr[data-pass="recompute"]').length === n,
    cliKernels(edited).rows.filter((r) => r.pass === 'recompute').length, { timeout: 30000 });
  // Another stage, as `shardcalc kernels --stage 0` prints it.
  await page.selectOption('#kernels-stage', '0');
  await page.waitForFunction(() => /^Pipeline stage 0 \(stages 0 to 1\)/.test(document.querySelector('#kernels-caption').textContent) &&
    document.querySelector('#kernels').dataset.state === 'drawn', null, { timeout: 30000 });
  const first = JSON.parse(execFileSync(cli, ['kernels', '-', '--stage', '0', '--format', 'json'], { input: JSON.stringify(edited) }));
  assert.deepEqual(await page.$$eval('#kernel-table tbody tr', (trs) => trs.map((tr) => tr.children[0].textContent)),
    first.rows.map((r) => r.module));
  await page.locator('#kernels').screenshot({ path: join(shots, 'kernels-llama-pipeline.png') });
  // The LSTM fields and the architecture's help (under "More").
  await page.$$eval('#scenario-form details.more', (ds) => ds.forEach((d) => { d.open = true; }));
  for (const id of ['f-model-projection', 'f-model-fused_gates']) assert.ok(await page.isVisible(`#${id}`), id);
  await page.click('[data-field="model.arch"] .help-toggle');
  await page.waitForSelector('#f-model-arch-help', { state: 'visible', timeout: 5000 });
  assert.match(await page.textContent('#f-model-arch-help'), /lstm/);
  assert.deepEqual(await page.$$eval('#f-model-arch option', (os) => os.map((o) => o.value).filter(Boolean)), ['decoder', 'encoder', 'lstm']);
  await close(page);
});
