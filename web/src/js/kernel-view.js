// "Kernels": the per-kernel table of a pipeline stage, the slowest unless the reader picks another
// (engine/report/kernel_table.h), as the engine
// gives it: every figure is the engine's; the only arithmetic here is unit scaling for display. A chunk of its
// own, fetched when the reader opens the section (app.js), with the whole engine behind it. It imports nothing:
// app.js hands it the page's DOM and number helpers, since a module shared with the page's first script splits
// that script into one more file to download at once (docs/performance.md).

const PASS = {
  forward: 'forward',
  backward_data: 'backward (data)',
  backward_weight: 'backward (weight)',
  recompute: 'recompute',
  optimizer: 'optimizer step',
};

const HEAD = [
  ['Module', ''], ['Kernel', ''], ['Pass', ''], ['Count', 'instances per microbatch (layers × time steps); per step for the optimizer'],
  ['m × k × n', 'GEMM shape'], ['GFLOP', 'one instance, 10⁹ FLOPs'], ['HBM MB', 'bytes from HBM, one instance (10⁶)'],
  ['L2 MB', 'GEMMs: bytes between L2 and the SMs, one instance (10⁶)'], ['HBM reloads A, C, B', 'times each GEMM operand is read from HBM'],
  ['L2 reloads A, C, B', 'times each GEMM operand is read from L2'], ['FLOP/byte', 'intensity against the HBM bytes'],
  ['Bound', ''], ['µs each', 'one instance'], ['ms per step', 'count × microbatches × one instance'],
];

// Asks the engine for the report's kernel table and draws it while `current()` (no newer report). #kernels[data-state]
// is "loading", then "drawn". `helpers`: dom.js's h, format.js's count, duration and fixed. The stage picker
// (#kernels-stage: the slowest, or a pipeline rank) keeps its choice while the plan has that rank.
export async function showKernels(engine, report, current, helpers) {
  const box = document.querySelector('#kernels');
  const picker = box.querySelector('#kernels-stage');
  const stages = report.memory.stages.length;
  const chosen = Number(picker.value);
  const stage = chosen >= 0 && chosen < stages ? chosen : -1;
  picker.replaceChildren(...[-1, ...Array.from({ length: stages }, (_, i) => i)].map((i) =>
    helpers.h('option', { value: i, selected: i === stage }, i < 0 ? 'the slowest stage' : `stage ${i}`)));
  picker.parentElement.hidden = stages < 2;
  picker.onchange = () => showKernels(engine, report, current, helpers);
  box.dataset.state = 'loading';
  let answer;
  try {
    answer = await engine.kernels(report.scenario, stage);
  } catch (error) {
    answer = { ok: false, error: { message: error.message } };
  }
  if (!current() || Number(picker.value) !== stage) return; // a newer report, or a newer choice, draws its own
  render(box.querySelector('#kernel-table'), box.querySelector('#kernels-caption'), answer, helpers);
  box.dataset.state = 'drawn';
}

function render(table, caption, answer, { h, count, duration, fixed }) {
  const mb = (bytes) => (bytes > 0 ? fixed(bytes / 1e6, 2) : '—');
  // Reloads of A, C and B, in DeepFlow's order (C, the output, is written once).
  const reloads = (r) => (r ? `${count(r.a)}, ${count(r.c)}, ${count(r.b)}` : '—');
  // A grouped GEMM's shape is one group's (a local expert's): "8 groups of 2,048 × 1,024 × 7,168".
  const shape = (g) => (g ? `${g.groups > 1 ? `${count(g.groups)} groups of ` : ''}${count(g.m)} × ${count(g.k)} × ${count(g.n)}` : '—');
  if (!answer.ok) {
    caption.textContent = `No kernel table: ${answer.error.message}`;
    table.replaceChildren();
    return;
  }
  const k = answer.kernels;
  const passes = Object.entries(PASS).filter(([p]) => k.pass_seconds[p] > 0)
    .map(([p, label]) => `${label} ${duration(k.pass_seconds[p])}`).join(', ');
  // Stages count from 0, as `shardcalc kernels --stage` and every other table number them.
  caption.textContent = `Pipeline stage ${k.stage} ${k.stages > 1 ? `(stages 0 to ${k.stages - 1})` : '(the only stage)'} on ${k.device} (${k.dtype}), ` +
    `${count(k.microbatches)} microbatches per step; inflection point ${fixed(k.inflection_point, 1)} FLOP/byte. ` +
    `Per step: ${passes}; all kernels ${duration(k.step_seconds)}.`;
  const head = h('tr', null, ...HEAD.map(([label, title]) => h('th', { scope: 'col', title: title || null }, label)));
  const rows = k.rows.map((r) => h('tr', { 'data-pass': r.pass, 'data-bound': r.bound },
    h('td', null, r.module), h('td', null, r.kernel), h('td', null, PASS[r.pass] || r.pass), h('td', { class: 'num' }, count(r.count)),
    h('td', { class: 'num' }, shape(r.gemm)), h('td', { class: 'num' }, fixed(r.flops / 1e9, 3)),
    h('td', { class: 'num' }, mb(r.hbm_bytes)), h('td', { class: 'num' }, mb(r.l2_bytes)),
    h('td', { class: 'num' }, reloads(r.hbm_reloads)), h('td', { class: 'num' }, reloads(r.l2_reloads)),
    h('td', { class: 'num' }, fixed(r.intensity, 2)), h('td', null, r.bound),
    h('td', { class: 'num' }, fixed(r.seconds * 1e6, 1)), h('td', { class: 'num' }, fixed(r.step_seconds * 1e3, 3))));
  table.replaceChildren(h('thead', null, head), h('tbody', null, ...rows));
}
