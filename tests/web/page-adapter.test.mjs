// Fine-tuning with an adapter on the page, in real Chromium: choosing LoRA, DoRA or QLoRA from the default plan moves the
// plan to a framework and split that PEFT runs (the engine's rules, adapt.js), says what moved, and answers with the
// whole engine exactly as the CLI answers the same scenario; a link carrying an adapter opens on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { belowDrawn, cliReport, close, expectMetric, link, open, scenario as plan, useBrowser } from './harness.mjs';

const env = useBrowser();

// The plan the form shows, as an engine scenario (the fields adapting may move, and the adapter's).
const formPlan = (page) => page.evaluate(() => {
  const v = (id) => document.querySelector(`#${id}`).value;
  return {
    framework: v('f-framework'),
    'parallel.tp': Number(v('f-parallel-tp')),
    'parallel.dp': Number(v('f-parallel-dp')),
    'parallel.pp': Number(v('f-parallel-pp')),
    'parallel.sp': document.querySelector('#f-parallel-sp').checked,
    recompute: v('f-training-recompute'),
    method: v('f-adapter-method'),
  };
});

test('choosing QLoRA moves the plan to plain PyTorch on one GPU per replica, and the answer is the CLI\'s', async () => {
  const page = await open(env);
  await page.selectOption('#f-adapter-method', 'qlora');
  await page.waitForSelector('#status[data-state="ready"]');
  const f = await formPlan(page);
  assert.equal(f.framework, 'pytorch');
  assert.equal(f.method, 'qlora');
  assert.equal(f['parallel.tp'], 1);
  assert.equal(f['parallel.dp'], 8, 'data parallelism takes up the devices tensor parallelism freed');
  const note = await page.textContent('#adapt-note');
  assert.match(note, /framework/i);
  const changes = { framework: f.framework, 'parallel.tp': 1, 'parallel.dp': 8, 'parallel.pp': f['parallel.pp'],
    'parallel.sp': f['parallel.sp'], 'adapter.method': 'qlora' };
  if (f.recompute) changes['training.recompute'] = f.recompute;
  const s = plan(changes);
  s.framework = f.framework;
  const cli = cliReport(s);
  assert.ok(cli.parameters.trained < cli.parameters.total / 100, 'the adapters are a small share of the model');
  await expectMetric(page, 'parameters.trained', cli.parameters.trained);
  await expectMetric(page, 'memory.per_device.total', cli.memory.per_device.total);
  assert.match(await page.textContent('.sub'), /trained/);
  await close(page);
});

test('a link with a LoRA adapter opens on it, its fields in the Fine-tune group, numbers as the CLI gives them', async () => {
  const s = { framework: 'pytorch', model: { preset: 'llama-3.1-8b' }, training: { seq_len: 2048, micro_batch: 2, recompute: 'full' },
    parallel: { dp: 1 }, hardware: { preset: 'h100-sxm-80gb' },
    adapter: { method: 'lora', rank: 32, targets: ['q', 'k', 'v', 'o'], dropout: 0.05 } };
  const cli = cliReport(s);
  const page = await open(env, link(s));
  await expectMetric(page, 'parameters.trained', cli.parameters.trained);
  await expectMetric(page, 'memory.per_device.total', cli.memory.per_device.total);
  assert.equal(await page.inputValue('#f-adapter-method'), 'lora');
  assert.equal(await page.inputValue('#f-adapter-rank'), '32');
  assert.equal(await page.inputValue('#f-adapter-targets'), 'q,k,v,o');
  await belowDrawn(page);
  await close(page);
});
