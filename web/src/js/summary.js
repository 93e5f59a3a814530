// The answer, always in view: a bar that stays at the top of the window while any input is edited,
// on desktop and phone, with the verdict and its margin, memory per device, step time, MFU, tokens/s
// and (when the run is given) days and cost to train, plus links to the sections. Time figures of a
// plan that does not fit are marked "if it fitted". Every number is a report field.
import { h } from './dom.js';
import { count, duration, large, percent, usd } from './format.js';
import { hypothetical, metric, verdictOf } from './render.js';

export function renderSummary(el, report, unit) {
  const v = verdictOf(report);
  const hypo = hypothetical(report);
  const m = (path, fmt) => metric(report, path, fmt, 'strong');
  const item = (label, ...value) => h('span', { class: 'summary-item' }, h('span', { class: 'summary-label' }, label), ' ', ...value);
  const run = report.training_run;
  el.replaceChildren(
    // elementtiming: the browser reports when the verdict is painted (Element Timing; scripts/budget.mjs reads it).
    h('span', { class: `summary-verdict ${v.cls}`, 'data-verdict': v.key, elementtiming: 'result' }, h('span', { 'aria-hidden': 'true' }, v.symbol, ' '), v.label,
      h('span', { class: 'summary-margin' }, ' margin ', metric(report, 'memory.verdict.margin', unit), ` ${unit}`)),
    item('per device', m('memory.per_device.total', unit), ` / `, metric(report, 'memory.capacity', unit), ` ${unit}`),
    h('span', { class: `summary-time${hypo ? ' hypothetical' : ''}` },
      hypo ? h('span', { class: 'summary-hypo' }, 'if it fitted: ') : null,
      item('step', m('time.step_seconds', duration)),
      item('MFU', m('time.mfu', percent),
        report.time?.efficiency_warning ? h('span', { class: 'summary-warning', title: report.time.efficiency_warning }, ' ⚠ implausible') : null),
      item('tokens/s', metric(report, 'throughput.tokens_per_second', large, 'strong', { title: count(report.throughput?.tokens_per_second) })),
      run ? item(`${large(run.tokens)} tokens`, m('training_run.days', (d) => `${d.toFixed(1)} days`),
        run.price_per_gpu_hour > 0 ? [' · ', m('training_run.cost', usd)] : null) : null),
  );
  // The sections below carry the report's data-metric nodes (tests and the Markdown export read them); the
  // summary's copies are marked as such.
  for (const n of el.querySelectorAll('[data-metric]')) {
    n.dataset.summaryMetric = n.dataset.metric;
    delete n.dataset.metric;
  }
  el.hidden = false;
}
