// "Post-train with RL": the plan's training run as the actor of a GRPO, PPO or DPO step, with its rollout engine (vLLM)
// on the same GPUs as verl's hybrid engine runs it (the engine's RL estimate, engine/rl/rl.h through io/api.h
// rl_scenario_text; docs/rl.md): each phase's memory on a GPU, the step's time, the largest settings that fit and verl's
// and TRL's flags. Every figure is the engine's; the only arithmetic here is unit scaling for display. A chunk of its
// own, fetched when the reader opens the section (app.js), with the whole engine behind it.

import { svg } from './dom.js';
import { askFor, compareWithLog, keepImplied, logBox, reasons } from './section-answer.js';

// The rl object's fields: key, label, input attributes (the engine checks every value and names the field).
const NUMBERS = [
  ['prompts', 'Prompts per step', { min: 1, value: 256 }],
  ['n', 'Responses per prompt (n)', { min: 1, value: 8 }],
  ['prompt_tokens', 'Prompt tokens', { min: 1, value: 512 }],
  ['response_tokens', 'Response tokens (longest)', { min: 1, value: 1024 }],
  ['mean_response_tokens', 'Mean response tokens (0: all at the longest)', { min: 0, value: 0 }],
  ['mean_prompt_tokens', 'Mean prompt tokens (0: all at the longest)', { min: 0, value: 0 }],
  ['mini_batches', 'Updates per step (mini-batches)', { min: 1, value: 1 }],
  ['max_token_len_per_gpu', 'Token budget per micro-batch (verl dynamic batch size; 0: off)', { min: 0, value: 0 }],
  ['rollout_tp', 'Rollout tensor parallel', { min: 1, value: 1 }],
  ['gpu_memory_utilization', 'Rollout GPU memory utilization', { min: 0.01, max: 1, step: 0.01, value: 0.5 }],
];
const SWITCHES = [
  ['reference', 'Reference policy (KL term)', true],
  ['sleep', 'Rollout engine sleeps between rollouts', true],
  ['param_offload', 'Offload the actor\'s weights between phases', false],
  ['reference_offload', 'Offload the reference\'s weights', false],
  ['optimizer_offload', 'Offload optimizer states', false],
];
const ALGORITHMS = [['grpo', 'GRPO'], ['ppo', 'PPO (with a critic)'], ['dpo', 'DPO (preference pairs, no rollout)']];
// Each part of a phase, its label and the page's colour for it (the stage chart's segment classes, style.css).
const PHASE_PARTS = [['actor_bytes', 'Actor', 'weights'], ['reference_bytes', 'Reference', 'cast_weights'],
  ['critic_bytes', 'Critic', 'gradients'], ['rollout_weights_bytes', 'Rollout weights', 'comm_buffers'],
  ['rollout_activations_bytes', 'Rollout activations', 'activations'], ['kv_cache_bytes', 'KV cache', 'optimizer'],
  ['logits_bytes', 'Logits', 'logits'], ['overhead_bytes', 'Overhead', 'other'], ['total_bytes', 'Total'],
  ['host_bytes', 'Host memory (the GPU\'s process)']];
const TIMES = [['reshard_seconds', 'Resharding'], ['rollout_seconds', 'Rollout'], ['log_prob_seconds', 'Log-probabilities'],
  ['training_seconds', 'Updates'], ['step_seconds', 'Step']];

// Builds the section's contents once (index.html holds its title only) and wires them: #rl[data-state] is "ready",
// then "loading" and "drawn" (or "error") for each estimate. `page`: {engine, report(), unit(), h, bytes, duration,
// count, calibrate(fields), request() (the link's RL settings), saved(request)}.
export function wireRl(page) {
  const { h } = page;
  const box = document.querySelector('#rl');
  const fields = h('div', { class: 'serving-fields' },
    h('label', null, 'Algorithm ', h('select', { id: 'rl-algorithm' }, ...ALGORITHMS.map(([value, text]) => h('option', { value }, text)))),
    ...NUMBERS.map(([key, label, attrs]) => h('label', null, `${label} `, h('input', { id: `rl-${key}`, type: 'number', ...attrs }))),
    ...SWITCHES.map(([key, label, on]) => h('label', null, h('input', { id: `rl-${key}`, type: 'checkbox', ...(on && { checked: '' }) }), ` ${label}`)));
  box.append(
    h('p', { class: 'muted' }, 'The plan\'s training run as the actor of an RL step, its vLLM rollout engine on the same GPUs (verl\'s ' +
      'hybrid engine): the micro-batch, parallelism and recompute are the plan\'s; the sequence is prompt + response. ' +
      'Not yet checked against a measured RL run (docs/rl.md).'),
    fields,
    h('p', { id: 'rl-status', role: 'status' }),
    h('div', { id: 'rl-chart', class: 'chart-scroll' }),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Memory per GPU by phase' }, h('table', { id: 'rl-phases' })),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Step time' }, h('table', { id: 'rl-time' })),
    h('p', { id: 'rl-limits' }),
    h('div', { id: 'rl-launch' }),
    ...logBox(h, 'rl', 'Compare with my verl log', 'Paste verl\'s step lines ("step:N - … - timing_s/gen:… - ' +
      'timing_s/step:…"): each phase beside the estimate of the settings above. Nothing leaves the page.', 'verl log'));
  fields.addEventListener('input', () => {
    page.saved(request());
    refreshRl(page);
  });
  box.querySelector('#rl-log-run').addEventListener('click', () => compareLog(page));
  box.querySelector('#rl-log-keep').addEventListener('click', () => keep(page));
  box.dataset.state = 'ready';
  restoreRl(page);
}

// Fills the fields from the link's RL settings (the page's `rl=`), or the defaults where it has none, and answers for
// them.
export function restoreRl(page) {
  const saved = page.request() ?? {};
  const input = (key) => document.querySelector(`#rl-${key}`);
  if (!input('algorithm')) return;
  input('algorithm').value = saved.algorithm ?? ALGORITHMS[0][0];
  for (const [key, , attrs] of NUMBERS) input(key).value = saved[key] ?? attrs.value;
  for (const [key, , on] of SWITCHES) input(key).checked = saved[key] ?? on;
  refreshRl(page);
}

// The rl object as the fields give it.
function request() {
  const rl = { algorithm: document.querySelector('#rl-algorithm').value };
  for (const [key] of NUMBERS) {
    const v = document.querySelector(`#rl-${key}`).value;
    if (v !== '') rl[key] = Number(v);
  }
  for (const [key] of SWITCHES) rl[key] = document.querySelector(`#rl-${key}`).checked;
  if (rl.algorithm === 'dpo') rl.n = 2;
  return rl;
}

// The actor: the plan's resolved scenario, its sequence and batch left to the rl object.
function rlScenario(report) {
  const s = structuredClone(report.scenario);
  delete s.training.seq_len;
  delete s.training.global_batch;
  return { ...s, rl: request() };
}

// Asks the engine again (the plan or a field changed) and draws the answer unless a newer one was asked for.
export async function refreshRl(page) {
  const box = document.querySelector('#rl');
  const report = page.report();
  if (!box.open || box.dataset.state === undefined || !report) return;
  const answer = await askFor(box, () => page.engine.rl(rlScenario(report)));
  if (!answer) return;
  if (compared) compareLog(page);
  const status = document.querySelector('#rl-status');
  const parts = ['#rl-chart', '#rl-phases', '#rl-time', '#rl-limits', '#rl-launch'].map((s) => document.querySelector(s));
  if (!answer.ok) {
    status.textContent = `No RL estimate: ${reasons(answer)}.`;
    for (const p of parts) p.replaceChildren();
    box.dataset.state = 'error';
    return;
  }
  draw(page, answer.rl, status, ...parts);
  box.dataset.state = 'drawn';
}

// The step's memory over its phases, one bar each, its parts stacked, against the GPU's capacity. Layout only: every
// value is the engine's.
function drawPhases(page, m, chart) {
  const { h, bytes } = page;
  const unit = page.unit();
  const parts = PHASE_PARTS.filter(([, , colour]) => colour);
  const W = 560, L = 80, R = 16, T = 8, bar = 22, gap = 10;
  const H = T + m.phases.length * (bar + gap) + 24;
  const most = Math.max(m.capacity_bytes, ...m.phases.map((p) => p.total_bytes));
  const x = (v) => L + (v / most) * (W - L - R);
  const bars = m.phases.map((p, i) => {
    const y = T + i * (bar + gap);
    let at = 0;
    return svg('g', { 'data-phase': p.phase },
      svg('text', { class: 'tick', x: L - 6, y: y + bar / 2, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, p.phase.replace('_', '-')),
      ...parts.filter(([key]) => p[key] > 0).map(([key, label, colour]) => {
        const seg = svg('rect', { class: `seg-${colour}`, x: x(at).toFixed(1), y, width: (x(at + p[key]) - x(at)).toFixed(1), height: bar },
          svg('title', null, `${label}: ${bytes(p[key], unit)} ${unit}`));
        at += p[key];
        return seg;
      }));
  });
  const cap = x(m.capacity_bytes).toFixed(1);
  // Presentation attributes and the page's segment classes: the first download carries no styles for this section.
  chart.replaceChildren(svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, 'font-size': 11, role: 'img',
    'aria-label': `Memory per GPU in each phase against the capacity of ${bytes(m.capacity_bytes, unit)} ${unit}` },
    ...bars,
    svg('line', { x1: cap, x2: cap, y1: T - 4, y2: H - 20, stroke: 'currentColor', 'stroke-dasharray': '5 3' }),
    svg('text', { class: 'tick', x: cap, y: H - 6, 'text-anchor': 'end' }, `capacity ${bytes(m.capacity_bytes, unit)} ${unit}`)),
  h('div', { class: 'legend' }, ...parts.map(([, label, colour]) =>
    h('span', { class: 'key' }, h('i', { class: `swatch seg-${colour}`, 'aria-hidden': 'true' }), label))));
}

function draw(page, r, status, chart, phases, time, limits, launch) {
  const { h, bytes, duration, count } = page;
  const unit = page.unit();
  const m = r.memory;
  drawPhases(page, m, chart);
  status.textContent = `${m.fits ? 'Fits' : 'Does not fit'}: ${count(r.samples)} sequences of ${count(r.sequence_tokens)} tokens per step on ` +
    `${count(r.gpus)} GPUs; the peak is in the ${m.peak_phase.replace('_', '-')} phase` +
    (r.rollout.replicas > 0 ? `; ${count(r.rollout.replicas)} rollout replicas generate ${count(r.rollout.concurrency)} sequences at once each, ` +
      `in ${count(r.rollout.waves)} wave(s).` : '.') +
    ` Host memory per node: ${bytes(m.host_per_node_bytes, unit)} ${unit} in the ${m.host_peak_phase.replace('_', '-')} phase ` +
    `(${count(m.processes_per_node)} processes; their own memory comes on top).`;
  phases.replaceChildren(
    h('caption', null, `Memory per GPU by phase (${unit}; capacity ${bytes(m.capacity_bytes, unit)})`),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Phase'), ...PHASE_PARTS.map(([, label]) => h('th', { scope: 'col' }, label)))),
    h('tbody', null, ...m.phases.map((p) => h('tr', { 'data-phase': p.phase }, h('th', { scope: 'row' }, p.phase.replace('_', '-')),
      ...PHASE_PARTS.map(([key]) => h('td', { 'data-rl': `${p.phase}.${key}`, 'data-value': String(p[key]) }, bytes(p[key], unit)))))));
  time.replaceChildren(
    h('caption', null, 'Step time'),
    h('tbody', null, ...TIMES.map(([key, label]) => h('tr', null, h('th', { scope: 'row' }, label),
      h('td', { 'data-rl': `time.${key}`, 'data-value': String(r.time[key]) }, duration(r.time[key]))))));
  const l = r.limits;
  const micro = l.max_token_len_per_gpu > 0
    ? `token budget ${count(l.max_token_len_per_gpu)} (${count(l.micro_batch)} sequences at the longest)` : `micro-batch ${count(l.micro_batch)}`;
  limits.textContent = `Largest that fit, each alone: ${micro}` +
    (r.algorithm === 'dpo' ? '' : `, responses per prompt ${l.n_unbounded ? `any (up to ${count(l.n)} tried)` : count(l.n)}`) +
    `, response tokens ${count(l.response_tokens)}` +
    (l.rollout_tp.length ? `; rollout tensor parallel: ${l.rollout_tp.map((t) => `${t.rollout_tp} ${t.fits ? duration(t.rollout_seconds) : 'does not fit'}`).join(', ')}.` : '.') +
    (r.algorithm === 'dpo' ? '' : ` The rollout's share of each GPU (gpu_memory_utilization) that fits: ${l.gpu_memory_utilization_max > 0
      ? `${l.gpu_memory_utilization_min.toFixed(2)} to ${l.gpu_memory_utilization_max.toFixed(2)}` : 'none'}.`);
  launch.replaceChildren(...r.launch.map((c) => h('div', { class: 'launch-tool', 'data-tool': c.tool },
    h('h4', null, c.tool), h('pre', null, `${c.lines.join('\n')}\n`))));
}

// verl's log against the estimate of the settings above (the engine's reader and reconciliation, as `shardcalc rl FILE
// LOG`): each phase the log times, the allocator peaks and the sequences' lengths beside the estimate, what the log
// implies and what it cannot tell; the button keeps what it implies. Once compared, each new estimate compares again.
let implied = {};
let compared = false;
async function compareLog(page) {
  compared = true;
  const report = page.report();
  if (!report) return;
  const { h, bytes, duration, count } = page;
  const unit = page.unit();
  const keep = document.querySelector('#rl-log-keep');
  const r = await compareWithLog({ h, box: document.querySelector('#rl'), table: document.querySelector('#rl-log-table'),
    status: document.querySelector('#rl-log-status'),
    caption: (c) => `Each the median over ${count(c.steps.used)} of the log's ${count(c.steps.read)} steps` +
      (c.steps.first_dropped ? ', the first left out' : ''),
    cell: (t, v) => (t.unit === 'bytes' ? `${bytes(v, unit)} ${unit}` : t.unit === 'seconds' ? duration(v) : count(Math.round(v))),
    implied: (v) => String(v) },
  () => page.engine.rl(rlScenario(report), document.querySelector('#rl-log').value));
  implied = r?.calibration ?? {};
  keep.hidden = Object.keys(implied).length === 0;
}

// The figures the last comparison implied, kept: the rl object's in the RL fields, the plan's (the actor's GEMM
// efficiency or host time) in the form, both in the link; the answers follow (refreshRl compares again).
function keep(page) {
  keepImplied(implied, 'rl.', (field) => document.querySelector(`#rl-${field}`), page, request, () => refreshRl(page));
}
