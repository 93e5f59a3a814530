// The page in real Chromium: memory over the step, the verdict and hypothetical times, the implementation fields
// whose defaults follow the framework, and the answer bar — every number the CLI's. Screenshots: artifacts/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DEFAULTS, cliReport, close, expectMetric, link, markdownOutput, open, shots, useBrowser } from './harness.mjs';
import { metrics, expectStages, plan70b, fillPlan70b, expectTime, openMore } from './page-checks.mjs';

// Playwright's default viewport (1280×720), the size these tests were written at, unless one is given.
const env = useBrowser({ viewport: { width: 1280, height: 720 } });

// ---- Memory over the step, the verdict and hypothetical times ----------------------------

const GPT2 = { framework: 'pytorch', model: { preset: 'gpt2' }, training: { seq_len: 1024, micro_batch: 8 } };
const TIGHT = { framework: 'pytorch', model: { preset: 'gpt2-xl' }, training: { seq_len: 1024, micro_batch: 8, train_tokens: 1e10 } };
const OOM = { framework: 'pytorch', model: { preset: 'llama-3.1-8b' }, training: { seq_len: 4096, micro_batch: 8 } };
const PHASE_WORDS = { step_start: 'Step start', forward_end: 'End of forward', loss_backward: 'Loss backward', layer_backward: 'Layer backward', optimizer_step: 'Optimizer step' };

// The timeline chart shows stage index `i` of the report: one column per moment in step order,
// every line's segment and every allocated label equal to the report's, the peak highlighted
// with reserved and total on top, and the same values in the table under the chart.
async function expectTimeline(page, report, i) {
  const stage = report.memory.stages[i];
  const base = `memory.stages.${i}`;
  await page.waitForFunction((s) => document.querySelector('#timeline-chart')?.dataset.stage === String(s), stage.stage, { timeout: 5000 });
  // The chart is redrawn with the table under it, in the task after the answer: wait until that table shows this
  // report's moments before reading the chart (a plan whose peak did not change shows the previous chart until then).
  for (const [j, p] of stage.timeline.entries()) await expectMetric(page, `${base}.timeline.${j}.allocated`, p.allocated);
  const shown = await page.$$eval('#timeline-chart [data-chart-metric]', (nodes) => Object.fromEntries(nodes.map((n) => [n.dataset.chartMetric, n.dataset.value])));
  const phases = await page.$$eval('#timeline-chart g.moment', (gs) => gs.map((g) => g.dataset.phase));
  assert.deepEqual(phases, stage.timeline.map((p) => p.phase), 'moments in step order');
  for (const [j, p] of stage.timeline.entries()) {
    assert.equal(shown[`${base}.timeline.${j}.allocated`], String(p.allocated), `${p.phase} allocated`);
    for (const [line, v] of Object.entries(p.lines))
      if (v > 0) assert.equal(shown[`${base}.timeline.${j}.lines.${line}`], String(v), `${p.phase} ${line}`);
      else assert.equal(shown[`${base}.timeline.${j}.lines.${line}`], undefined, `${p.phase} ${line} is zero: not drawn`);
    await expectMetric(page, `${base}.timeline.${j}.allocated`, p.allocated);
    for (const [line, v] of Object.entries(p.lines)) if (v > 0) await expectMetric(page, `${base}.timeline.${j}.lines.${line}`, v);
  }
  assert.equal(shown[`${base}.reserved`], String(stage.reserved));
  assert.equal(shown[`${base}.total`], String(stage.total));
  assert.equal(shown[`${base}.other_detail.fragmentation`], String(stage.other_detail.fragmentation));
  assert.equal(await page.getAttribute('#timeline-chart g.moment.peak', 'data-phase'), stage.peak_phase);
  // Phase names in words (on one line or two: a <tspan> holds the second).
  const labels = await page.$$eval('#timeline-chart g.moment text.phase', (ts) => ts.map((t) => [...t.childNodes].map((n) => n.textContent).join(' ')));
  assert.deepEqual(labels, stage.timeline.map((p) => PHASE_WORDS[p.phase]));
  const peak = stage.timeline.find((p) => p.phase === stage.peak_phase);
  assert.ok((await page.textContent('#timeline-peak')).includes(peak.what), 'the peak moment says what is alive');
  assert.equal(await page.locator('#timeline-table tbody tr.peak').getAttribute('data-phase'), stage.peak_phase);

  // Geometry: every column, the fragmentation on top of the peak and the capacity line share one
  // scale (pixels per byte) from one baseline.
  const geo = await page.evaluate(() => {
    const chart = document.querySelector('#timeline-chart');
    const cols = [...chart.querySelectorAll('g.moment')].map((g) => {
      const rects = [...g.querySelectorAll('rect.seg')].map((r) => ({ y: +r.getAttribute('y'), h: +r.getAttribute('height') }));
      return { bottom: Math.max(...rects.map((r) => r.y + r.h)), top: Math.min(...rects.map((r) => r.y)) };
    });
    const frag = chart.querySelector('rect.frag');
    const outside = chart.querySelector('rect.outside');
    return { cols, capY: +chart.querySelector('line.capacity').getAttribute('y1'),
      frag: frag && { y: +frag.getAttribute('y'), h: +frag.getAttribute('height') },
      outside: outside && { y: +outside.getAttribute('y'), h: +outside.getAttribute('height') } };
  });
  const baseline = geo.cols[0].bottom;
  const scale = (baseline - geo.cols[0].top) / stage.timeline[0].allocated;
  const near = (a, b, what) => assert.ok(Math.abs(a - b) < 0.6, `${what}: ${a} vs ${b}`);
  for (const [j, p] of stage.timeline.entries()) {
    near(geo.cols[j].bottom, baseline, `${p.phase} baseline`);
    near(baseline - geo.cols[j].top, p.allocated * scale, `${p.phase} height`);
  }
  near(baseline - geo.capY, report.memory.capacity * scale, 'capacity line');
  near(baseline - geo.frag.y, stage.reserved * scale, 'reserved at the peak');
  near(baseline - geo.outside.y, stage.total * scale, 'total at the peak');
}

test('memory over the step, pp=1: the timeline chart and its table equal the CLI', async () => {
  const report = cliReport(GPT2);
  assert.equal(report.memory.stages.length, 1);
  assert.ok(report.memory.stages[0].timeline.length >= 4);
  const page = await open(env, link(GPT2));
  await expectStages(page, report);
  await expectTimeline(page, report, 0);
  assert.equal(await page.isVisible('#timeline-picker'), false, 'no stage picker with one stage');
  assert.equal(await page.isVisible('#timeline-chart'), true);
  // The unit follows the page's.
  await page.selectOption('#unit', 'GB');
  await page.waitForFunction(() => document.querySelector('#timeline-chart .tick:last-of-type')?.textContent === 'GB');
  await expectTimeline(page, report, 0);
  await page.selectOption('#unit', 'GiB');
  await page.click('#timeline-section details.as-table summary');
  await page.locator('#timeline-section').screenshot({ path: join(shots, 'memory-timeline.png') });
  await close(page);
});

test('memory over the step, pp=4: the most loaded stage first, a picker for the others, values equal the CLI', async () => {
  const page = await open(env);
  await fillPlan70b(page);
  const report = cliReport(plan70b());
  const stages = report.memory.stages;
  assert.equal(stages.length, 4);
  await expectStages(page, report);
  const peakIndex = stages.findIndex((s) => s.stage === report.memory.per_device.stage);
  await expectTimeline(page, report, peakIndex);
  assert.equal(await page.isVisible('#timeline-picker'), true);
  assert.equal(await page.locator('#timeline-stage option').count(), 4);
  assert.equal(await page.inputValue('#timeline-stage'), String(peakIndex));
  assert.match(await page.textContent(`#timeline-stage option[value="${peakIndex}"]`), /most loaded/);
  // The last stage holds the loss: one more moment (loss backward), and its own peak.
  const last = stages.length - 1;
  assert.ok(stages[last].timeline.some((p) => p.phase === 'loss_backward'));
  assert.ok(!stages[0].timeline.some((p) => p.phase === 'loss_backward'));
  await page.selectOption('#timeline-stage', String(last));
  await expectTimeline(page, report, last);
  await page.locator('#timeline-section').screenshot({ path: join(shots, 'memory-timeline-pp4.png') });
  // The pick survives an unrelated change (a new report) and the charts follow it.
  await page.selectOption('#f-training-recompute', 'full');
  const full = cliReport({ ...plan70b(), training: { ...plan70b().training, recompute: 'full' } });
  await expectStages(page, full);
  await expectTimeline(page, full, last);
  assert.equal(await page.inputValue('#timeline-stage'), String(last));
  await close(page);
});

// The memory headline's verdict, and every time figure marked as hypothetical unless it fits.
async function expectVerdict(page, report) {
  const v = report.memory.verdict;
  const words = { fits: 'Fits', tight: 'Tight', does_not_fit: 'Does not fit' }[v.verdict];
  await expectMetric(page, 'memory.verdict.verdict', v.verdict);
  await expectMetric(page, 'memory.verdict.margin', v.margin);
  assert.equal(await page.textContent('[data-metric="memory.verdict.verdict"]'), words);
  assert.equal(await page.getAttribute('#headline .verdict', 'data-verdict'), v.verdict);
  const reason = await page.textContent('#headline .reason');
  assert.equal(reason.toLowerCase(), `${v.reason}.`.toLowerCase(), 'the engine’s reason, as a sentence');
  await expectMetric(page, 'memory.per_device.allocated', report.memory.per_device.allocated);
  await expectMetric(page, 'memory.per_device.reserved', report.memory.per_device.reserved);
  const hypothetical = v.verdict !== 'fits';
  assert.equal(await page.evaluate(() => document.querySelector('#time-section').classList.contains('hypothetical')), hypothetical);
  assert.equal(await page.isVisible('#time-headline .time-main .hypo-label'), hypothetical, 'the step-time line says "if it fitted"');
  assert.equal(await page.isVisible('#time-headline .hypo-note'), hypothetical);
  if (hypothetical) {
    assert.equal((await page.textContent('#time-headline .time-main .hypo-label')).trim(), 'If it fitted');
    assert.match(await page.textContent('#time-headline .hypo-note'), /Hypothetical/);
    // Each figure looks different from a plain result (muted and striped).
    const style = await page.$eval('[data-metric="time.step_seconds"]', (n) => ({ bg: getComputedStyle(n).backgroundImage, color: getComputedStyle(n).color }));
    assert.match(style.bg, /repeating-linear-gradient/);
  } else {
    assert.equal(await page.locator('.hypo-label').count(), 0);
  }
}

test('the verdict: fits, tight and does not fit, with the engine’s reason; times marked hypothetical unless it fits', async () => {
  for (const [name, scenario, expected] of [['fits', GPT2, 'fits'], ['tight', TIGHT, 'tight'], ['does-not-fit', OOM, 'does_not_fit']]) {
    const report = cliReport(scenario);
    assert.equal(report.memory.verdict.verdict, expected, `${name} scenario`);
    assert.equal(report.memory.fits, expected === 'fits');
    const page = await open(env, link(scenario));
    await expectStages(page, report);
    await expectVerdict(page, report);
    await expectTime(page, report);
    if (report.training_run) for (const f of ['days', 'gpu_hours']) await expectMetric(page, `training_run.${f}`, report.training_run[f]);
    if (expected === 'tight') {
      assert.ok(report.training_run, 'the tight scenario prices a run');
      assert.equal(await page.locator('#time-headline .hypo-label').count(), 3, 'step line, HFU line and the training run');
      assert.match(await page.textContent('#time-table tfoot'), /if it fitted/);
    }
    await expectTimeline(page, report, 0);
    const md = await markdownOutput(page);
    const words = { fits: 'Fits', tight: 'Tight', does_not_fit: 'Does not fit' }[expected];
    assert.ok(md.includes(`: **${words}**`), md);
    assert.ok(md.includes(report.memory.verdict.reason.slice(1)), 'the reason in the Markdown (as a sentence: capital first letter)');
    if (expected === 'fits') assert.match(md, /^Step time \*\*[\d.]+ (s|ms)\*\*/m);
    else {
      assert.match(md, /^_Hypothetical, if it fitted[^_]*_: step time [\d.]+ (s|ms), [\d,]+ tokens\/s, MFU [\d.]+ %/m);
      assert.doesNotMatch(md, /Step time \*\*/, 'no plain step time');
    }
    assert.match(md, /Memory over the step, stage \d+/);
    await page.locator('#results').screenshot({ path: join(shots, `verdict-${name}.png`) });
    await close(page);
  }
});

test('embed mode marks the times of a plan that does not fit as hypothetical', async () => {
  const report = cliReport(OOM);
  const page = await open(env, `?embed=1${link(OOM)}`, { viewport: { width: 800, height: 700 } });
  await expectStages(page, report);
  await expectVerdict(page, report);
  assert.equal(await page.isVisible('[data-metric="memory.verdict.verdict"]'), true);
  assert.equal(await page.isVisible('#headline .reason'), true);
  for (const m of ['time.step_seconds', 'time.mfu', 'throughput.tokens_per_second'])
    assert.ok(await page.isVisible(`[data-metric="${m}"]`), `${m} visible in embed mode`);
  assert.equal(await page.isVisible('#timeline-section'), false, 'the timeline is left out of the compact view');
  assert.ok(await page.locator('#time-headline .hypo-label').count() > 0, 'the step time marked "if it fitted"');
  await page.screenshot({ path: join(shots, 'embed-does-not-fit.png'), fullPage: true });
  await close(page);
});

// ---- Implementation fields (framework-dependent defaults, read from the report's scenario echo) --

// The blank option of a select: what it says the engine's default is.
const defaultOption = (page, id) => page.textContent(`#${id} option[data-default]`);

async function expectDefaultOption(page, id, text) {
  try {
    await page.waitForFunction(([i, t]) => document.querySelector(`#${i} option[data-default]`)?.textContent === t, [id, text], { timeout: 5000 });
  } catch {
    assert.fail(`${id}: shows "${await defaultOption(page, id)}", expected "${text}"`);
  }
}

async function shareLink(page) {
  await page.click('#copy-link');
  await page.waitForFunction(() => document.querySelector('#share-url')?.value.includes('#v=2'));
  return page.inputValue('#share-url');
}

const optimizerStep = (report) => report.memory.stages[0].timeline.find((p) => p.phase === 'optimizer_step');

test('implementation defaults follow the framework; optimizer_impl=fused changes the optimizer-step transient to the CLI values', async () => {
  const page = await open(env);
  // Megatron's defaults first, as the engine resolved them.
  await expectDefaultOption(page, 'f-implementation-model_code', 'framework default (megatron)');
  await expectDefaultOption(page, 'f-implementation-optimizer_impl', 'framework default (fused)');
  await expectDefaultOption(page, 'f-implementation-tf32', 'framework default (true)');
  await expectDefaultOption(page, 'f-implementation-allocator', 'default (caching)');
  await expectDefaultOption(page, 'f-model-hidden_act', 'default (silu)');
  await expectDefaultOption(page, 'f-model-fused_qkv', 'default (false)');
  await openMore(page, 'implementation');
  assert.equal(await page.getAttribute('#f-implementation-host_forward_us', 'placeholder'), '38.5');
  assert.equal(await page.getAttribute('#f-implementation-host_backward_us', 'placeholder'), '32');
  // The tooltips are the field help, a chunk fetched once the reader reaches the form (a pointer over it here).
  await page.hover('#f-implementation-model_code');
  await page.waitForSelector('#scenario-form[data-help="loaded"]', { state: 'attached' });
  assert.match(await page.getAttribute('#f-implementation-model_code', 'title'), /huggingface: transformers modules run op by op/);
  assert.equal(await page.getAttribute('label[for="f-implementation-model_code"]', 'title'), await page.getAttribute('#f-implementation-model_code', 'title'));

  await page.selectOption('#f-framework', 'pytorch');
  await page.fill('#f-training-seq_len', '1024');
  await page.fill('#f-training-micro_batch', '8');
  await page.selectOption('#f-model-preset', 'gpt2');
  const scenario = { ...structuredClone(DEFAULTS), framework: 'pytorch', model: { preset: 'gpt2' }, training: { ...DEFAULTS.training, seq_len: 1024, micro_batch: 8 } };
  const foreach = cliReport(scenario);
  assert.equal(foreach.scenario.implementation.model_code, 'huggingface');
  assert.equal(foreach.scenario.implementation.optimizer_impl, 'foreach');
  await expectStages(page, foreach);
  await expectDefaultOption(page, 'f-implementation-model_code', 'framework default (huggingface)');
  await expectDefaultOption(page, 'f-implementation-optimizer_impl', 'framework default (foreach)');
  await expectDefaultOption(page, 'f-implementation-tf32', 'framework default (false)');
  // The preset's model fields are shown as its values; the model code's default resolves them.
  assert.equal(await page.inputValue('#f-model-hidden_act'), 'gelu_new');
  assert.equal(await page.inputValue('#f-model-fused_qkv'), 'true');
  for (const id of ['model_code', 'optimizer_impl', 'tf32', 'allocator', 'host_forward_us', 'host_backward_us'])
    assert.equal(await page.inputValue(`#f-implementation-${id}`), '', `${id} left at its default`);
  let url = await shareLink(page);
  assert.ok(url.includes('framework=pytorch'), url);
  assert.ok(!url.includes('implementation.') && !url.includes('hidden_act') && !url.includes('fused_qkv'), `defaults are not in the link: ${url}`);

  await page.selectOption('#f-implementation-optimizer_impl', 'fused');
  scenario.implementation = { optimizer_impl: 'fused' };
  const fused = cliReport(scenario);
  assert.ok(optimizerStep(foreach).lines.transient > 0, 'foreach keeps a temporary at the step');
  assert.equal(optimizerStep(fused).lines.transient, 0, 'the fused kernel keeps none');
  assert.ok(optimizerStep(fused).allocated < optimizerStep(foreach).allocated);
  await expectStages(page, fused);
  await expectTimeline(page, fused, 0);
  await expectTime(page, fused);
  assert.notEqual(fused.time.breakdown.optimizer_step, foreach.time.breakdown.optimizer_step);
  url = await shareLink(page);
  assert.ok(url.includes('implementation.optimizer_impl=fused'), url);
  assert.ok(!url.includes('implementation.model_code') && !url.includes('implementation.tf32'), url);

  // Back to the default: out of the scenario and the link again.
  await page.selectOption('#f-implementation-optimizer_impl', '');
  await expectStages(page, foreach); // the new answer first (the timeline helper reads the chart at once), as above
  await expectTimeline(page, foreach, 0);
  url = await shareLink(page);
  assert.ok(!url.includes('implementation.'), url);
  await page.locator('#section-implementation').screenshot({ path: join(shots, 'implementation-fields.png') });
  await close(page);
});

test('tf32 on changes the step time of an fp32 run to the CLI value', async () => {
  const FP32 = { framework: 'pytorch', model: { preset: 'gpt2' }, training: { seq_len: 1024, micro_batch: 8, dtype: 'fp32' } };
  const off = cliReport(FP32);
  assert.equal(off.scenario.implementation.tf32, false);
  const page = await open(env, link(FP32));
  await expectTime(page, off);
  await expectDefaultOption(page, 'f-implementation-tf32', 'framework default (false)');
  await page.selectOption('#f-implementation-tf32', 'true');
  const on = cliReport({ ...FP32, implementation: { tf32: true } });
  assert.ok(on.time.step_seconds < off.time.step_seconds, 'TF32 is faster');
  await expectTime(page, on);
  await expectStages(page, on);
  assert.ok((await shareLink(page)).includes('implementation.tf32=true'));
  await close(page);
});

test('implementation and model-code fields round-trip through a share link and #scenario=', async () => {
  const page = await open(env);
  await page.selectOption('#f-framework', 'fsdp');
  await page.fill('#f-training-seq_len', '2048');
  await page.selectOption('#f-implementation-optimizer_impl', 'for_loop');
  await page.selectOption('#f-implementation-tf32', 'true');
  await page.selectOption('#f-implementation-allocator', 'expandable_segments');
  await openMore(page, 'implementation');
  await page.fill('#f-implementation-host_forward_us', '50');
  await openMore(page, 'model');
  await page.selectOption('#f-model-hidden_act', 'gelu_pytorch_tanh');
  await page.selectOption('#f-model-fused_qkv', 'true');
  const scenario = {
    ...structuredClone(DEFAULTS), framework: 'fsdp', training: { ...DEFAULTS.training, seq_len: 2048 },
    model: { preset: 'llama-3.1-8b', hidden_act: 'gelu_pytorch_tanh', fused_qkv: true },
    implementation: { optimizer_impl: 'for_loop', tf32: true, allocator: 'expandable_segments', host_forward_us: 50 },
  };
  const report = cliReport(scenario);
  assert.deepEqual(report.scenario.implementation,
    { model_code: 'huggingface', optimizer_impl: 'for_loop', tf32: true, allocator: 'expandable_segments', host_forward_us: 50, host_backward_us: 32 });
  assert.notEqual(report.time.step_seconds, cliReport({ ...scenario, model: { preset: 'llama-3.1-8b' } }).time.step_seconds,
    'the model fields change the step time');
  await expectStages(page, report);
  await expectTime(page, report);
  assert.ok(await page.locator('[data-field="model.hidden_act"]').evaluate((n) => n.classList.contains('is-override')));

  const url = await shareLink(page);
  for (const key of ['implementation.optimizer_impl=for_loop', 'implementation.tf32=true', 'implementation.allocator=expandable_segments',
    'implementation.host_forward_us=50', 'model.hidden_act=gelu_pytorch_tanh', 'model.fused_qkv=true'])
    assert.ok(url.includes(key), `${key} in ${url}`);
  for (const key of ['implementation.model_code', 'implementation.host_backward_us'])
    assert.ok(!url.includes(key), `${key} (left at its default) not in ${url}`);
  const before = await metrics(page);

  const other = await open(env, url.slice(env.server.url.length));
  await expectStages(other, report);
  await expectTime(other, report);
  assert.deepEqual(await metrics(other), before);
  const values = { 'implementation-model_code': '', 'implementation-optimizer_impl': 'for_loop', 'implementation-tf32': 'true',
    'implementation-allocator': 'expandable_segments', 'implementation-host_forward_us': '50', 'implementation-host_backward_us': '',
    'model-hidden_act': 'gelu_pytorch_tanh', 'model-fused_qkv': 'true' };
  for (const [id, value] of Object.entries(values)) assert.equal(await other.inputValue(`#f-${id}`), value, id);
  await expectDefaultOption(other, 'f-implementation-model_code', 'framework default (huggingface)');
  assert.equal(await shareLink(other), url, 'the reopened page writes the same link');
  await close(other);

  // An engine scenario with an implementation object opens with the same values.
  const fromScenario = await open(env, link(scenario));
  await expectStages(fromScenario, report);
  await expectTime(fromScenario, report);
  for (const [id, value] of Object.entries(values)) assert.equal(await fromScenario.inputValue(`#f-${id}`), value, id);
  await close(fromScenario);
  await close(page);
});

test('a GPT-2 config.json fills hidden_act and the fused QKV projection: the numbers equal the gpt2 preset', async () => {
  const page = await open(env);
  await page.selectOption('#f-framework', 'pytorch');
  await page.fill('#f-training-seq_len', '1024');
  const config = {
    architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', activation_function: 'gelu_new', n_ctx: 1024, n_embd: 768,
    n_head: 12, n_inner: null, n_layer: 12, n_positions: 1024, vocab_size: 50257, layer_norm_epsilon: 1e-5,
  };
  await page.fill('#hf-config', JSON.stringify(config));
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#f-model-layers')?.value === '12');
  assert.equal(await page.inputValue('#f-model-hidden_act'), 'gelu_new');
  assert.equal(await page.inputValue('#f-model-fused_qkv'), 'true');
  assert.doesNotMatch(await page.textContent('#hf-import-message'), /Not understood/);
  const report = cliReport({ ...structuredClone(DEFAULTS), framework: 'pytorch', model: { preset: 'gpt2' }, training: { ...DEFAULTS.training, seq_len: 1024 } });
  await expectStages(page, report);
  await expectTime(page, report);
  await close(page);
});


test('the answer stays in view while the plan is edited, on desktop and phone; time marked "if it fitted" when it does not fit', async () => {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    const page = await open(env, '', { viewport });
    const report = cliReport(DEFAULTS);
    assert.equal(report.memory.verdict.verdict, 'fits', 'the page opens on a plan that fits');
    for (const framework of ['deepspeed', 'fsdp', 'pytorch'])
      assert.equal(cliReport({ ...DEFAULTS, framework }).memory.verdict.verdict, 'fits', `and still fits under ${framework}`);
    await page.waitForSelector('#summary:not([hidden])');
    assert.equal(await page.getAttribute('#summary .summary-verdict', 'data-verdict'), 'fits');
    // Editing a field far down the form: the summary is on screen and shows the engine's figures.
    await page.locator('#f-parallel-tp').scrollIntoViewIfNeeded();
    await page.fill('#f-parallel-tp', '2');
    const scenario = structuredClone(DEFAULTS);
    scenario.parallel.tp = 2;
    const two = cliReport(scenario);
    await page.waitForFunction((v) => document.querySelector('#summary [data-summary-metric="time.step_seconds"]')?.dataset.value === String(v),
      two.time.step_seconds);
    const box = await page.locator('#summary').boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= viewport.height, `summary in view at ${viewport.width}px: ${JSON.stringify(box)}`);
    assert.equal(await page.getAttribute('#summary [data-summary-metric="memory.per_device.total"]', 'data-value'), String(two.memory.per_device.total));
    assert.equal(await page.getAttribute('#summary [data-summary-metric="time.mfu"]', 'data-value'), String(two.time.mfu));
    const verdict = await page.getAttribute('#summary .summary-verdict', 'data-verdict');
    assert.equal(verdict, two.memory.verdict.verdict === 'fits' ? 'fits' : verdict);
    assert.equal(await page.locator('#summary .summary-hypo').count(), two.memory.verdict.verdict === 'fits' ? 0 : 1);
    await page.screenshot({ path: join(shots, `summary-${viewport.width}.png`) });
    // The table of contents reaches the sections.
    await page.click('.toc a[href="#time-title"]');
    assert.ok(report.time.step_seconds > 0);
    await close(page);
  }
});

test('an implausible MFU is flagged with its reason, in the time section and the summary', async () => {
  // A device described as ideal (every efficiency 1, free links and launches): an MFU no run reached.
  const hot = { framework: 'megatron', model: { preset: 'gpt3-175b' }, training: { seq_len: 2048, global_batch: 8192, micro_batch: 2 },
    parallel: { dp: 8, tp: 8, pp: 8 },
    hardware: { preset: 'a100-sxm-80gb', memory_gib: 1000, matmul_efficiency: 1, attention_efficiency: 1, intra_node_gbps: 1e6,
      inter_node_gbps: 1e6, intra_node_latency_us: 0, inter_node_latency_us: 0, kernel_launch_us: 0 } };
  const report = cliReport(hot);
  assert.ok(report.time.efficiency_warning);
  const page = await open(env, `#scenario=${encodeURIComponent(JSON.stringify(hot))}`);
  await page.waitForSelector('#time-headline .efficiency-warning');
  assert.match(await page.textContent('#time-headline .efficiency-warning'), /above any published training run/);
  assert.equal(await page.locator('#summary .summary-warning').count(), 1);
  await page.screenshot({ path: join(shots, 'implausible-mfu.png') });
  await close(page);
});
