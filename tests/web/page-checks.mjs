// What several page test files check the same way: every metric the page shows, the memory of each stage, the
// time and communication figures against the CLI's report, and the 70B plan they use (page*.test.mjs).
import assert from 'node:assert/strict';
import { DEFAULTS, expectMetric, lowerChartsDrawn } from './harness.mjs';

// Every figure the page shows, by metric, the Gantt chart's and the roofline's included (drawn first).
export async function metrics(page) {
  await lowerChartsDrawn(page);
  return page.$$eval('[data-metric]', (nodes) => Object.fromEntries(nodes.map((n) => [n.dataset.metric, n.dataset.value])));
}

export async function expectStages(page, report) {
  await expectMetric(page, 'memory.per_device.total', report.memory.per_device.total);
  for (const [i, stage] of report.memory.stages.entries())
    for (const field of ['weights', 'gradients', 'optimizer', 'activations', 'allocated', 'other_detail.fragmentation', 'reserved', 'total'])
      await expectMetric(page, `memory.stages.${i}.${field}`, field.split('.').reduce((o, k) => o[k], stage));
  await expectMetric(page, 'parameters.total', report.parameters.total);
}

// LLaMA-3.1-70B on H100s with tp=8, pp=4, dp=2 and a global batch of 16, as an engine scenario.
export function plan70b() {
  const scenario = structuredClone(DEFAULTS);
  scenario.model.preset = 'llama-3.1-70b';
  Object.assign(scenario.parallel, { tp: 8, pp: 4, dp: 2 });
  scenario.training.global_batch = 16;
  return scenario;
}

export async function fillPlan70b(page) {
  await page.selectOption('#f-model-preset', 'llama-3.1-70b');
  await page.fill('#f-parallel-tp', '8');
  await page.fill('#f-parallel-pp', '4');
  await page.fill('#f-parallel-dp', '2');
  await page.fill('#f-training-global_batch', '16');
}

// Step time, throughput, every breakdown part and every collective's exposed time.
export async function expectTime(page, report) {
  await expectMetric(page, 'time.step_seconds', report.time.step_seconds);
  await expectMetric(page, 'time.mfu', report.time.mfu);
  await expectMetric(page, 'time.hfu', report.time.hfu);
  await expectMetric(page, 'throughput.tokens_per_second', report.throughput.tokens_per_second);
  await expectMetric(page, 'throughput.tflops_per_device', report.throughput.tflops_per_device);
  await expectMetric(page, 'pipeline.bubble_fraction', report.pipeline.bubble_fraction);
  for (const [name, seconds] of Object.entries(report.time.breakdown))
    if (seconds > 0) await expectMetric(page, `time.breakdown.${name}`, seconds);
    else assert.equal(await page.locator(`#time-table [data-part="${name}"]`).count(), 0, `${name} takes no time: no row`);
  for (const [i, c] of report.communication.entries()) {
    await expectMetric(page, `communication.${i}.exposed_seconds`, c.exposed_seconds);
    await expectMetric(page, `communication.${i}.volume_per_iteration`, c.volume_per_iteration);
  }
  for (const [dim, d] of Object.entries(report.communication_summary)) {
    await expectMetric(page, `communication_summary.${dim}.volume_per_iteration`, d.volume_per_iteration);
    await expectMetric(page, `communication_summary.${dim}.exposed_seconds`, d.exposed_seconds);
  }
}

export async function openMore(page, section) {
  const details = page.locator(`#section-${section} details.more`);
  if (!(await details.getAttribute('open').then((v) => v !== null))) await details.locator('summary').click();
}
