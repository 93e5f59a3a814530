// Inputs that guide, in real Chromium: every error of a plan at once (next to each field and in the banner,
// the same problems as the CLI's), steppers and arrow keys that only go to values the plan allows, menus
// that mark what the framework refuses, an emptied field that returns to its preset's value, and a
// Markdown export that says why when there is nothing to export. Screenshots: artifacts/screenshots/guide-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  DESKTOP, PHONE, cli, cliErrors, cliReport, close, expectMetric, open, scenario as plan, shots, useBrowser,
} from './harness.mjs';

const env = useBrowser();

const value = (page, id) => page.locator(`#${id}`).inputValue();

test('every error at once: each at its field, all in the banner in words, the same problems as the CLI', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(env, '', { viewport });
    await page.fill('#f-parallel-tp', '3');
    await page.fill('#f-training-global_batch', '7');
    await page.waitForSelector('#status[data-state="error"]');
    const expected = cliErrors(plan({ 'parallel.tp': 3, 'training.global_batch': 7 }));
    assert.deepEqual(expected.map((e) => e.path), ['/training/global_batch', '/parallel/tp']);
    await page.waitForFunction((n) => document.querySelectorAll('#engine-error li').length === n, expected.length);
    const banner = await page.$$eval('#engine-error li', (lis) => lis.map((li) => [li.dataset.errorPath, li.textContent]));
    assert.deepEqual(banner.map(([p]) => p), expected.map((e) => e.path));
    // In words: the field's label, not its JSON pointer; the engine's message with the values that work.
    // (then, once the engine has found it, the one-click fix: "Use 2")
    assert.match(banner[1][1], /^Tensor parallel \(tp\): must divide .*tp that work: 1, 2, 4, 8( Use 2)?$/);
    assert.match(banner[0][1], /^Global batch: /);
    for (const e of expected) {
      const shown = await page.locator(`.field-error[data-error-for="${e.path}"]`).textContent();
      assert.equal(shown, e.message);
    }
    assert.match(await page.locator('#status').textContent(), /2 input errors/);
    await page.screenshot({ path: join(shots, `guide-errors-${viewport.width}.png`), fullPage: false });
    // Fixing one leaves the other, fixing both gives a result.
    await page.fill('#f-parallel-tp', '4');
    await page.waitForFunction(() => document.querySelectorAll('#engine-error li').length === 1);
    await page.fill('#f-training-global_batch', '64');
    await page.waitForSelector('#status[data-state="ready"]');
    assert.equal(await page.locator('.field-error').count(), 0);
    await close(page);
  }
});

test('a link with three problems shows all three; the framework\'s refusal of a ZeRO stage is one of them', async () => {
  const page = await open(env, '#v=2&parallel.tp=3&training.global_batch=7&parallel.zero=2', { ready: '#status[data-state="error"]' });
  const expected = cliErrors(plan({ 'parallel.tp': 3, 'training.global_batch': 7, 'parallel.zero': 2 }));
  assert.equal(expected.length, 3);
  await page.waitForFunction(() => document.querySelectorAll('#engine-error li').length === 3);
  assert.deepEqual(await page.$$eval('[data-error-for]', (es) => es.map((e) => e.dataset.errorFor)), expected.map((e) => e.path));
  await close(page);
});

test('steppers and arrow keys go to the values the plan allows, both ways, and stop at the last one', async () => {
  const page = await open(env);
  // tp must divide 32 heads, 8 KV heads and 14,336: from the default 4, up is 8 and then nothing; down is 2, then 1.
  await page.focus('#f-parallel-tp');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => document.querySelector('#f-parallel-tp').value === '8');
  await expectMetric(page, 'memory.per_device.total', cliReport(plan({ 'parallel.tp': 8 })).memory.per_device.total);
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => document.querySelector('#f-parallel-tp').dataset.stepEnd === 'top');
  assert.equal(await value(page, 'f-parallel-tp'), '8');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown'); // pressed before the first step came back: it waits, never skips
  await page.waitForFunction(() => document.querySelector('#f-parallel-tp').value === '2');
  // The − / + buttons do the same (the browser's count-by-one spin buttons are hidden on these fields).
  const stepper = (id, dir) => page.locator(`.stepper:has(#${id}) .step[data-step="${dir}"]`);
  await stepper('f-parallel-dp', 1).click();
  await page.waitForFunction(() => document.querySelector('#f-parallel-dp').value === '4'); // 64 samples: dp 3 does not divide
  await stepper('f-parallel-pp', 1).click();
  await page.waitForFunction(() => document.querySelector('#f-parallel-pp').value === '2');
  await stepper('f-training-micro_batch', 1).click();
  await page.waitForFunction(() => document.querySelector('#f-training-micro_batch').value === '2');
  await stepper('f-training-micro_batch', 1).click();
  await page.waitForFunction(() => document.querySelector('#f-training-micro_batch').value === '4'); // 64/(4 dp) = 16: 3 does not divide
  await page.waitForSelector('#status[data-state="ready"]');
  await expectMetric(page, 'memory.per_device.total',
    cliReport(plan({ 'parallel.tp': 2, 'parallel.dp': 4, 'parallel.pp': 2, 'training.micro_batch': 4 })).memory.per_device.total);
  await page.locator('#section-parallel').screenshot({ path: join(shots, 'guide-steppers.png') });
  await close(page);
});

test('the ZeRO and offload menus offer what the framework allows and say why not for the rest', async () => {
  const page = await open(env);
  const zero = () => page.$$eval('#f-parallel-zero option[data-allowed]', (os) => os.map((o) => `${o.value}${o.disabled ? '-' : '+'}`).join(' '));
  const expect = async (framework, text) => {
    await page.selectOption('#f-framework', framework);
    await page.waitForFunction(([t]) => [...document.querySelectorAll('#f-parallel-zero option[data-allowed]')]
      .map((o) => `${o.value}${o.disabled ? '-' : '+'}`).join(' ') === t, [text]);
    assert.equal(await zero(), text);
  };
  await expect('megatron', '0+ 1- 2- 3-');
  assert.match(await page.locator('#f-parallel-zero option[value="1"]').getAttribute('title'), /^Not allowed here: the megatron profile/);
  // Megatron-FSDP (2, 3) needs the distributed optimizer, which the default plan leaves off.
  assert.match(await page.locator('#f-parallel-zero option[value="3"]').getAttribute('title'), /Megatron-FSDP/);
  await expect('fsdp', '0+ 1- 2+ 3+');
  await expect('pytorch', '0+ 1+ 2- 3-');
  await expect('deepspeed', '0+ 1+ 2+ 3+');
  // With DeepSpeed's pipeline engine (pp > 1) ZeRO 2 and 3 are refused.
  await page.fill('#f-parallel-pp', '2');
  await page.waitForFunction(() => document.querySelector('#f-parallel-zero option[value="2"]').disabled);
  // Megatron offloads only the optimizer, to the CPU: the parameter offload menu offers none alone.
  await page.selectOption('#f-framework', 'megatron');
  await page.waitForFunction(() => document.querySelector('#f-parallel-offload_params option[value="cpu"]').disabled);
  assert.equal(await page.locator('#f-parallel-offload_params option[value="none"]').isDisabled(), false);
  await close(page);
});

test('an emptied field returns to its preset\'s value (or the engine default), never to an error', async () => {
  const page = await open(env);
  const params = (changes) => cliReport(plan(changes)).parameters.total;
  await page.fill('#f-model-layers', '16');
  await expectMetric(page, 'parameters.total', params({ 'model.layers': 16 }));
  await page.fill('#f-model-layers', '');
  // While the field has the focus it stays empty, its placeholder says what it means; the engine evaluates that.
  await expectMetric(page, 'parameters.total', params({}));
  assert.equal(await value(page, 'f-model-layers'), '');
  assert.equal(await page.locator('#f-model-layers').getAttribute('placeholder'), '32');
  await page.focus('#f-model-hidden');
  await page.waitForFunction(() => document.querySelector('#f-model-layers').value === '32');
  assert.ok(!page.url().includes('model.layers'), 'the preset\'s value is not an override in the link');
  // A field without a preset value returns to the engine's default, shown as the placeholder.
  await page.fill('#f-parallel-pp', '2');
  await expectMetric(page, 'memory.per_device.total', cliReport(plan({ 'parallel.pp': 2 })).memory.per_device.total);
  await page.fill('#f-parallel-pp', '');
  await page.focus('#f-model-hidden');
  const engineDefault = plan();
  delete engineDefault.parallel.pp;
  await expectMetric(page, 'memory.per_device.total', cliReport(engineDefault).memory.per_device.total);
  assert.equal(await page.locator('#f-parallel-pp').getAttribute('placeholder'), '1');
  assert.equal(await page.locator('.field-error').count(), 0);
  await close(page);
});

test('Copy Markdown always does something: the results, or why there are none', async () => {
  const page = await open(env);
  await page.click('#copy-markdown');
  await page.waitForFunction(() => document.querySelector('#share-note').textContent !== '');
  assert.match(await page.locator('#markdown-output').inputValue(), /^\*\*shardcalc\*\*/);
  await page.fill('#f-parallel-tp', '3');
  await page.waitForSelector('#status[data-state="error"]');
  await page.click('#copy-markdown');
  const note = await page.locator('#share-note').textContent();
  assert.match(note, /^No Markdown: the plan has an error \(Tensor parallel \(tp\)\); fix it to export the results\.$/);
  // The text box does not keep the last plan's Markdown under an invalid plan.
  assert.equal(await page.locator('#markdown-output').inputValue(), note);
  await close(page);
});

test('a published plan (presets/plans) loads every field, names its source, and equals the CLI', async () => {
  const page = await open(env);
  const ids = await page.$$eval('#plan-preset option', (os) => os.map((o) => o.value).filter(Boolean));
  assert.ok(ids.includes('megatron-gpt3-175b-64xa100'), ids.join(', '));
  await page.selectOption('#plan-preset', 'megatron-gpt3-175b-64xa100');
  await page.waitForSelector('#plan-source:not(:empty)'); // fetched on the first choice (presets/plan-sources.json)
  assert.match(await page.locator('#plan-source').textContent(), /^Source: Korthikanti et al\. 2022/);
  await page.waitForFunction(() => document.querySelector('#f-parallel-pp').value === '8');
  assert.equal(await value(page, 'f-parallel-vpp'), '3');
  assert.equal(await value(page, 'f-hardware-preset'), 'a100-sxm-80gb');
  const presets = JSON.parse(execFileSync(cli, ['presets', '--format', 'json']));
  const { source, ...scenario } = presets.plans.find((p) => p.id === 'megatron-gpt3-175b-64xa100').scenario;
  assert.ok(source);
  const report = cliReport(scenario);
  await expectMetric(page, 'memory.per_device.total', report.memory.per_device.total);
  await expectMetric(page, 'time.step_seconds', report.time.step_seconds);
  assert.equal(await page.getAttribute('[data-verdict]', 'data-verdict'), 'fits');
  // The plan is in the link: a fresh page opened on it shows the same numbers.
  const again = await open(env, new URL(page.url()).hash);
  await expectMetric(again, 'memory.per_device.total', report.memory.per_device.total);
  await close(again);
  await close(page);
});

test('every published plan, Megatron, DeepSpeed ZeRO-3 fine-tune and Ulysses long context alike, shows what the CLI computes and fits', async () => {
  const { plans } = JSON.parse(execFileSync(cli, ['presets', '--format', 'json']));
  const ids = plans.map((p) => p.id);
  for (const kind of ['megatron-', 'deepspeed-zephyr-', 'deepspeed-ulysses-']) assert.ok(ids.some((id) => id.startsWith(kind)), ids.join(', '));
  const page = await open(env);
  for (const plan of plans) {
    await page.selectOption('#plan-preset', plan.id);
    const { source, ...scenario } = plan.scenario;
    await page.waitForFunction((s) => document.querySelector('#plan-source').textContent === s, `Source: ${source}`);
    const report = cliReport(scenario);
    await expectMetric(page, 'memory.per_device.total', report.memory.per_device.total);
    await expectMetric(page, 'time.step_seconds', report.time.step_seconds);
    assert.equal(await page.getAttribute('[data-verdict]', 'data-verdict'), 'fits', plan.id);
  }
  await close(page);
});

test('the module tree opens collapsed; a click opens one module and the choice survives an edit', async () => {
  const page = await open(env);
  const visible = () => page.$$eval('#module-table tbody tr', (rows) => rows.filter((r) => !r.hidden).map((r) => r.dataset.path));
  const top = await visible();
  assert.ok(top.length <= 6, `top-level rows only: ${top.join(', ')}`);
  assert.ok(top.includes('layer'));
  await page.click('#module-table tr[data-path="layer"] button.tree');
  assert.ok((await visible()).length > top.length);
  const opened = await visible();
  await page.fill('#f-training-seq_len', '4096');
  await page.waitForSelector('#status[data-state="ready"]');
  await expectMetric(page, 'memory.per_device.total', cliReport(plan({ 'training.seq_len': 4096 })).memory.per_device.total);
  assert.deepEqual(await visible(), opened);
  await close(page);
});

test('an uneven pipeline (first and last stage layers) shows each stage with its own layers, as the CLI', async () => {
  const page = await open(env);
  const scenario = {
    framework: 'megatron', model: { preset: 'llama-3.1-405b' },
    training: { seq_len: 8192, micro_batch: 1, global_batch: 64, recompute: 'full' },
    parallel: { dp: 2, tp: 8, pp: 16, sp: true, distributed_optimizer: true, first_stage_layers: 7, last_stage_layers: 7 },
    hardware: { preset: 'h100-sxm-80gb' },
  };
  await page.goto(`${env.server.url}#scenario=${encodeURIComponent(JSON.stringify(scenario))}`);
  const report = cliReport(scenario);
  assert.deepEqual(report.memory.stages.map((s) => s.layers), [7, ...Array(14).fill(8), 7]);
  for (const [i, s] of report.memory.stages.entries()) {
    await expectMetric(page, `memory.stages.${i}.layers`, s.layers);
    await expectMetric(page, `memory.stages.${i}.total`, s.total);
  }
  assert.equal(await value(page, 'f-parallel-first_stage_layers'), '7');
  // A split the layers do not allow names the field in words.
  await page.fill('#f-parallel-first_stage_layers', '6');
  await page.waitForSelector('#status[data-state="error"]');
  assert.match(await page.locator('#engine-error li').first().textContent(), /^First stage layers: the other 14 stages must share the remaining 113 layers evenly/);
  await close(page);
});
