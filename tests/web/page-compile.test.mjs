// torch.compile on the page, in real Chromium: the Implementation group's torch.compile field answers (through the whole
// engine, which holds inductor's kernels) exactly as the CLI answers the same scenario, and a link carries the mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { belowDrawn, cliReport, close, expectMetric, link, open, useBrowser } from './harness.mjs';

const env = useBrowser();

const gpt2 = (implementation) => ({ framework: 'pytorch', model: { preset: 'gpt2' },
  training: { seq_len: 1024, micro_batch: 8, global_batch: 32 }, implementation, hardware: { preset: 'h100-sxm-80gb' } });

test('choosing torch.compile on an eager transformers plan answers as the CLI does, with less memory and a shorter step', async () => {
  const eager = cliReport(gpt2({ optimizer_impl: 'fused' }));
  const compiled = cliReport(gpt2({ optimizer_impl: 'fused', compile: 'inductor' }));
  assert.ok(compiled.memory.per_device.total < eager.memory.per_device.total);
  assert.ok(compiled.time.step_seconds < eager.time.step_seconds);
  const page = await open(env, link(gpt2({ optimizer_impl: 'fused' })));
  await expectMetric(page, 'memory.per_device.total', eager.memory.per_device.total);
  await page.selectOption('#f-implementation-compile', 'inductor');
  await expectMetric(page, 'memory.per_device.total', compiled.memory.per_device.total);
  await expectMetric(page, 'time.step_seconds', compiled.time.step_seconds);
  await close(page);
});

test('a link with a CUDA-graph compile mode opens on it, numbers as the CLI gives them', async () => {
  const s = gpt2({ compile: 'reduce_overhead' });
  const cli = cliReport(s);
  const page = await open(env, link(s));
  await expectMetric(page, 'time.step_seconds', cli.time.step_seconds);
  await expectMetric(page, 'memory.per_device.total', cli.memory.per_device.total);
  assert.equal(await page.inputValue('#f-implementation-compile'), 'reduce_overhead');
  await belowDrawn(page);
  await close(page);
});

test('the torch.compile menu marks the modes the plan does not allow, with the engine\'s reason', async () => {
  const page = await open(env);  // the default plan: Megatron's code, which torch.compile is not modelled for
  await page.waitForFunction(() => document.querySelector('#f-implementation-compile option[value="inductor"]')?.dataset.allowed === 'false');
  assert.match(await page.getAttribute('#f-implementation-compile option[value="inductor"]', 'title'), /^Not allowed here: .*torch\.compile/);
  await close(page);
  const eager = await open(env, link(gpt2({})));
  await eager.waitForFunction(() => document.querySelector('#f-implementation-compile option[value="inductor"]')?.dataset.allowed === 'true');
  await close(eager);
});
