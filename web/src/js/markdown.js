// The results as Markdown for a wiki or an issue (the Share block's export). A file of its own, fetched when the
// Share block nears the screen or Copy Markdown is pressed (app.js), not in the page's first download.
import { h } from './dom.js';
import { bytes, count, duration, fixed, percent, phaseLabel, usd, usdPrice } from './format.js';
import { hypothetical, planNodes, reasonIn, sentence, stageColumns, verdictOf } from './render.js';
import { LINES } from './memory-timeline.js';

const row = (cells) => `| ${cells.join(' | ')} |`;

// Text from a link (a device name, any preset or plan word) as Markdown that shows exactly that
// text: on one line, with no table cell break, emphasis, code, link or HTML. Markdown characters
// get a backslash, HTML ones become entities (a Markdown renderer passes raw HTML through).
export const markdownText = (text) => String(text)
  .replace(/[\r\n\u2028\u2029]+/g, ' ')
  .replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c])
  .replace(/[\\|*_`[\]~#!]/g, '\\$&');

const cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export function markdown(report, unit, presets) {
  const m = report.memory;
  const cols = stageColumns(report);
  const plan = markdownText(h('span', {}, planNodes(report, presets)).textContent);
  const v = verdictOf(report);
  const gb = (value) => `${bytes(value, unit)} ${unit}`;
  const peak = m.per_device;
  const xla = peak.xla;
  const peakIndex = Math.max(0, m.stages.findIndex((s) => s.stage === peak.stage));
  const walk = m.stages[peakIndex]?.timeline || [];
  const lines = LINES.filter(([key]) => walk.some((p) => p.lines?.[key] > 0));
  const times = `${duration(report.time?.step_seconds)}, ${fixed(report.throughput?.tokens_per_second, 0)} tokens/s, ` +
    `MFU ${percent(report.time?.mfu)} (HFU ${percent(report.time?.hfu)})`;
  const run = report.training_run;
  // Dollar signs escaped: two on a line read as inline math to GitHub and other Markdown renderers.
  const dollars = (text) => text.replaceAll('$', '\\$');
  const runText = run ? `${fixed(run.days, 1)} days, ${fixed(run.gpu_hours, 0)} GPU-hours` +
    (run.price_per_gpu_hour > 0 ? `, cost ${dollars(usd(run.cost))} at ${dollars(usdPrice(run.price_per_gpu_hour))} per GPU-hour` : '') : '';
  const out = [
    `**shardcalc**: ${plan}`,
    '',
    `Per-device peak **${gb(peak.total)}** of ${gb(m.capacity)}: **${v.label}**${v.hint ? ` (${v.hint})` : ''}. ` +
      `${sentence(reasonIn(m.verdict, unit))} Margin ${gb(m.verdict?.margin)} ${xla ? 'as XLA compiles it' : 'at the worst measured fragmentation'}; ` +
      `peak on stage ${count(peak.stage)} at ${phaseLabel(peak.peak_phase)}: ` +
      (xla ? `program ${gb(xla.program)}, arguments ${gb(xla.arguments)}, runtime reserve ${gb(xla.reserved)}; `
        : `allocated ${gb(peak.allocated)}, reserved ${gb(peak.reserved)}; `) +
      `parameters ${count(report.parameters.total)}` +
      `${report.parameters.active < report.parameters.total ? ` (${count(report.parameters.active)} active)` : ''}.`,
    '',
    hypothetical(report)
      ? `_Hypothetical, if it fitted (the plan ${v.key === 'tight' ? 'is tight on memory' : 'does not fit'})_: step time ${times}` +
        `${run ? `; training run ${runText}` : ''}.`
      : `Step time **${duration(report.time?.step_seconds)}**, ${fixed(report.throughput?.tokens_per_second, 0)} tokens/s, ` +
        `MFU ${percent(report.time?.mfu)} (HFU ${percent(report.time?.hfu)})${run ? `; training run ${runText}` : ''}.`,
    '',
    row(['Stage', 'Layers', 'In-flight', ...cols.map(([label]) => `${label.replaceAll('\u00ad', '')} (${unit})`)]),
    row(['---:', '---:', '---:', ...cols.map(() => '---:')]),
    ...m.stages.map((s) => row([count(s.stage), count(s.layers), (s.inflight_microbatches || []).map(count).join('/'),
      ...cols.map(([, f]) => bytes(f.split('.').reduce((o, k) => o?.[k], s), unit))])),
  ];
  if (walk.length) {
    out.push('', `Memory over the step, stage ${count(peak.stage)} (allocated at each moment):`, '',
      row(['Moment', `Allocated (${unit})`, ...lines.map(([, label]) => `${label} (${unit})`)]),
      row(['---', '---:', ...lines.map(() => '---:')]),
      ...walk.map((p) => row([`${cap(phaseLabel(p.phase))}${p.phase === peak.peak_phase ? ' (peak)' : ''}`, bytes(p.allocated, unit),
        ...lines.map(([key]) => bytes(p.lines[key], unit))])));
  }
  if (xla) {
    out.push('', `Largest program allocations (XLA; saved tensors ${gb(xla.saved_all)} if all kept, ${gb(xla.saved_floor)} never rematerialized, ` +
      `${gb(xla.rematerialized)} rematerialized):`, '', row(['Size', 'Unpadded', 'Count', 'Shape', 'Module', 'Tensor']),
    row(['---:', '---:', '---:', '---', '---', '---']),
    ...xla.largest_allocations.map((a) => row([gb(a.size), gb(a.unpadded_size), count(a.count), `\`${a.shape}\``, a.module, a.tensor])));
  }
  return `${out.join('\n')}\n`;
}
