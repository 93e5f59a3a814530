// Results from the engine's report: headline, derived values, stage table, module tree, notes.
// Every number from the report is an element with data-metric = its report path and
// data-value = the raw value, so what is shown can be traced (and tested) against the report.
import { h } from './dom.js';
import { bytes, count, large, phaseLabel } from './format.js';
import { TERMS } from './schema.js';

export const dig = (obj, path) => path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

// One number from the report, formatted as bytes (in `unit`), by a formatter function, or as a count.
export function metric(report, path, unit, tag = 'span', attrs = {}) {
  const value = dig(report, path);
  const text = typeof unit === 'function' ? unit(value) : unit ? bytes(value, unit) : count(value);
  return h(tag, { ...attrs, class: `num ${attrs.class || ''}`.trim(), 'data-metric': path, 'data-value': String(value ?? '') }, text);
}

// The plan's model by its preset's name ("Custom model" where the link gives its own shape).
export const modelName = (report, presets) => {
  const id = report.scenario.model.preset;
  return id ? presets.models.find((p) => p.id === id)?.name || id : 'Custom model';
};

// "Llama 3.1 70B · megatron · dp 8 × tp 8 × pp 4 · ..." from the resolved scenario; the numbers
// are traceable elements (the Markdown export uses the same nodes' text).
export function planNodes(report, presets) {
  const s = report.scenario;
  const num = (label, path) => [label, metric(report, path)];
  const model = modelName(report, presets);
  const par = ['dp', 'tp', 'pp', 'vpp', 'cp', 'ulysses', 'ep']
    .filter((k) => ['dp', 'tp', 'pp'].includes(k) || s.parallel[k] > 1)
    .flatMap((k, j) => [j ? ' × ' : '', ...num(`${k} `, `scenario.parallel.${k}`)]);
  const parts = [[model], [s.framework], par, s.parallel.zero ? num('ZeRO-', 'scenario.parallel.zero') : null,
    num('seq ', 'scenario.training.seq_len'), num('micro-batch ', 'scenario.training.micro_batch'),
    num('global batch ', 'scenario.training.global_batch'), [s.training.dtype], [`recompute ${s.training.recompute}`],
    [s.hardware.name || s.hardware.preset || 'custom device']];
  return parts.filter(Boolean).flatMap((p, i) => (i ? [' · ', ...p] : p));
}

// The engine's memory verdict: fits, tight (near capacity: may fail from fragmentation) or
// does not fit. Colour is never the only carrier: each state has its own word and symbol.
// Their words are the engine's (memory/allocator.h kVerdicts, through js/schema.js).
const LOOK = {
  fits: { symbol: '✓', cls: 'v-fits', hint: '' },
  tight: { symbol: '!', cls: 'v-tight', hint: 'near capacity: may fail from fragmentation' },
  does_not_fit: { symbol: '✗', cls: 'v-oom', hint: '' },
};
export const VERDICTS = Object.fromEntries(TERMS.verdicts.map(([key, label]) => [key, { label, ...LOOK[key] }]));

export function verdictOf(report) {
  const v = report.memory?.verdict?.verdict || (report.memory?.fits ? 'fits' : 'does_not_fit');
  return { key: v, ...(VERDICTS[v] || { label: v.replaceAll('_', ' '), symbol: '?', cls: 'v-oom', hint: '' }) };
}

// Times of a plan that does not fit (or may not) are only what it would take if it fitted.
export const hypothetical = (report) => verdictOf(report).key !== 'fits';

// The engine's reason as a sentence (capital first letter, full stop).
export const sentence = (text) => {
  const t = String(text || '').trim();
  return t ? `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}` : '';
};

// The verdict's reason in the reader's unit: the engine gives its words and amounts apart (reason_parts; amounts in
// bytes), and writes GiB in `reason` itself.
export const reasonIn = (verdict, unit) => (verdict?.reason_parts
  ? verdict.reason_parts.map((p) => (typeof p === 'number' ? `${bytes(p, unit)} ${unit}` : p)).join('') : verdict?.reason);

export function renderHeadline(el, report, unit, presets) {
  const m = report.memory;
  const v = verdictOf(report);
  const host = m.host || {};
  const peak = m.per_device;
  const xla = m.verdict?.allocator === 'xla';
  el.replaceChildren(...[
    h('p', { class: 'plan' }, planNodes(report, presets)),
    h('p', { class: 'big' }, metric(report, 'memory.per_device.total', unit, 'strong'), ` ${unit} per device`,
      h('span', { class: 'of' }, ' of ', metric(report, 'memory.capacity', unit), ` ${unit}`)),
    h('p', { class: `verdict ${v.cls}`, 'data-verdict': v.key },
      h('span', { class: 'badge' }, h('span', { class: 'symbol', 'aria-hidden': 'true' }, v.symbol),
        h('span', { 'data-metric': 'memory.verdict.verdict', 'data-value': v.key }, v.label)),
      v.hint ? h('span', { class: 'hint' }, ` ${v.hint}`) : null,
      h('span', { class: 'margin' }, ' margin ', metric(report, 'memory.verdict.margin', unit),
        ` ${unit} ${xla ? 'as XLA compiles it (no allocator)' : 'at the worst measured fragmentation'}`)),
    h('p', { class: 'reason', 'data-metric': 'memory.verdict.reason', 'data-value': m.verdict?.reason ?? '' }, sentence(reasonIn(m.verdict, unit))),
    h('p', { class: 'sub' }, 'Peak on pipeline stage ', metric(report, 'memory.per_device.stage'),
      peak.peak_phase ? ` at ${phaseLabel(peak.peak_phase)}` : '',
      ...(xla ? [': program ', metric(report, 'memory.per_device.xla.program', unit), ' · arguments ', metric(report, 'memory.per_device.xla.arguments', unit),
        ' · runtime reserve ', metric(report, 'memory.per_device.xla.reserved', unit)]
        : [': allocated ', metric(report, 'memory.per_device.allocated', unit), ' · reserved ', metric(report, 'memory.per_device.reserved', unit)]),
      ` · total ${bytes(peak.total, unit)} ${unit} · parameters `, metric(report, 'parameters.total', large, 'span', { title: count(report.parameters?.total) }),
      // A MoE model: the parameters each token uses (the routed experts it skips left out).
      report.parameters?.active < report.parameters?.total
        ? [' (', metric(report, 'parameters.active', large, 'span', { title: count(report.parameters.active) }), ' active)'] : null,
      // An adapter: the parameters trained (its frozen base left out).
      report.parameters?.trained < report.parameters?.total
        ? [', ', metric(report, 'parameters.trained', large, 'span', { title: count(report.parameters.trained) }), ' trained'] : null),
    host.cpu_per_device > 0 || host.nvme_per_device > 0
      ? h('p', { class: 'sub' }, 'Offload: host CPU ', metric(report, 'memory.host.cpu_per_device', unit), ` ${unit} per device, `,
        metric(report, 'memory.host.cpu_per_node', unit), ` ${unit} per node · NVMe `, metric(report, 'memory.host.nvme_per_device', unit), ` ${unit} per device`)
      : null,
  ].filter(Boolean));
}

const DERIVED = [
  ['World size', 'world_size'],
  ['Nodes', 'nodes'],
  ['Gradient accumulation steps', 'gradient_accumulation'],
  ['Global batch (samples)', 'samples_per_step'],
  ['Tokens per step', 'tokens_per_step', large],
];

export function renderDerived(el, report) {
  el.replaceChildren(h('dl', {}, DERIVED.map(([label, key, fmt]) => h('div', {}, h('dt', {}, label),
    h('dd', {}, metric(report, `derived.${key}`, fmt, 'span', fmt ? { title: count(report.derived?.[key]) } : {}))))));
}

// Stage table columns: [header, stage field, kind, title, group]. The lines that make up the allocated
// peak, then Allocated, + fragmentation = Reserved, + overhead outside the allocator = Total.
// `detail` columns (and the host ones) only appear when some stage has a non-zero value.
const STAGE_COLS = [
  ['Weights', 'weights', null, null, 'allocated'],
  ['Gradients', 'gradients', null, null, 'allocated'],
  ['Optimizer', 'optimizer', null, null, 'allocated'],
  ['Acti\u00advations', 'activations', null, null, 'allocated'],
  ['Logits', 'other_detail.logits', 'detail', null, 'allocated'],
  ['Comm buffers', 'other_detail.comm_buffers', 'detail', null, 'allocated'],
  ['Cast weights', 'other_detail.cast_weights', 'detail', null, 'allocated'],
  ['Transient', 'other_detail.transient', 'detail', null, 'allocated'],
  ['Work\u00adspace', 'other_detail.workspace', 'detail', null, 'allocated'],
  ['Allocated', 'allocated', 'subtotal', 'allocated at the peak moment of the step: the sum of the parts to its left', 'allocated'],
  ['Frag\u00admen\u00adtation', 'other_detail.fragmentation', null, 'reserved by the caching allocator beyond what is allocated', 'reserved'],
  ['Reserved', 'reserved', 'subtotal', 'allocated + fragmentation', 'reserved'],
  ['Over\u00adhead', 'other_detail.overhead', null, null, 'total'],
  ['Total', 'total', 'total', 'reserved + overhead', 'total'],
  ['Host CPU', 'host.cpu', 'detail', null, 'host'],
  ['Host NVMe', 'host.nvme', 'detail', null, 'host'],
];

// The group header over the memory columns: the parts and their sum, then each step to the total,
// so the sums never read as more memory on top of the parts. In a group, the sum column reads
// "= Allocated" and the column added to the previous sum "+ Fragmentation".
const STAGE_GROUPS = {
  allocated: 'Allocated at the peak: the parts and their sum',
  reserved: 'Reserved by the allocator',
  total: 'Total on the device',
  host: 'Offloaded to the host',
};
const operator = (kind, group, first) => (kind === 'subtotal' || kind === 'total' ? '=\u00a0' : first && group !== 'allocated' && group !== 'host' ? '+\u00a0' : '');

export function stageColumns(report) {
  const stages = report.memory.stages;
  return STAGE_COLS.filter(([, f, kind]) => kind !== 'detail' || stages.some((s) => dig(s, f) > 0));
}

export function renderStageTable(table, report, unit) {
  const cols = stageColumns(report);
  const peak = report.memory.per_device.stage;
  const groups = [];
  for (const col of cols) {
    const last = groups[groups.length - 1];
    if (last?.id === col[4]) last.cols.push(col);
    else groups.push({ id: col[4], cols: [col] });
  }
  const lead = (text) => h('th', { scope: 'col', rowspan: 2, class: text === 'Stage' ? null : 'num' }, text);
  table.replaceChildren(
    h('caption', { class: 'sr-only' }, `Memory per device for each pipeline stage, in ${unit}: the parts add up to Allocated; ` +
      'Allocated + fragmentation = Reserved; Reserved + overhead = Total'),
    h('colgroup', { span: 3, class: 'col-lead' }),
    ...groups.map((g) => h('colgroup', { span: g.cols.length, class: `col-group col-${g.id}`, 'data-group': g.id })),
    h('thead', {},
      h('tr', { class: 'group-head' }, lead('Stage'), lead('Layers'), lead('In-flight'),
        groups.map((g) => h('th', { scope: 'colgroup', colspan: g.cols.length, class: `group-${g.id}`, 'data-group': g.id }, `${STAGE_GROUPS[g.id]} (${unit})`))),
      h('tr', {}, groups.flatMap((g) => g.cols.map(([label, field, kind, title], j) =>
        h('th', { scope: 'col', class: `num ${kind || ''}`.trim(), title: field === 'other_detail.overhead' ? `outside the allocator: ${report.memory.verdict?.reserve}` : title,
          'data-group': g.id }, `${operator(kind, g.id, j === 0)}${label}`))))),
    h('tbody', {}, report.memory.stages.map((s, i) => {
      const base = `memory.stages.${i}`;
      const inflight = (s.inflight_microbatches || []).flatMap((_, j) => [j ? '/' : '', metric(report, `${base}.inflight_microbatches.${j}`)]);
      return h('tr', { class: s.stage === peak ? 'peak' : null },
        metric(report, `${base}.stage`, null, 'th', { scope: 'row' }),
        metric(report, `${base}.layers`, null, 'td'),
        h('td', { class: 'num' }, inflight),
        cols.map(([, f, kind]) => metric(report, `${base}.${f}`, unit, 'td', { class: kind === 'total' || kind === 'subtotal' ? kind : '' })));
    })),
  );
}

// XLA's program (framework xla on a TPU), in the shape of XLA's HBM report: the lines, then the largest program
// allocations with their shapes, tiled layouts and padded sizes, as the engine listed them. Each table scrolls
// sideways in its own region on a narrow screen, never the page.
export function renderXla(section, el, report, unit) {
  const base = 'memory.per_device.xla';
  const x = dig(report, base);
  section.hidden = !x;
  if (!x) return el.replaceChildren();
  const line = (label, path, note) => h('tr', {}, h('th', { scope: 'row' }, label), metric(report, `${base}.${path}`, unit, 'td'), h('td', {}, note));
  el.replaceChildren(
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'XLA\u2019s HBM lines' },
      h('table', { class: 'xla-lines' }, h('caption', { class: 'sr-only' }, `XLA's HBM lines in ${unit}`), h('tbody', {},
        line('Total HBM', 'total', 'reserved + program + arguments'),
        line('Reserved', 'reserved', report.memory.verdict?.reserve),
        line('Program (HLO temp)', 'program', 'every buffer alive at the program\u2019s peak'),
        line('Arguments', 'arguments', 'weights and optimizer states, the step\u2019s parameters'),
        line('Saved tensors, all kept', 'saved_all', 'what backward would keep with no rematerialization'),
        line('Saved tensors XLA keeps', 'saved_floor', 'RNG outputs and attention probabilities: never rematerialized'),
        line('Rematerialized', 'rematerialized', 'recomputed in backward so that the program fits')))),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Largest program allocations' },
      h('table', { class: 'xla-largest' },
        h('caption', {}, `Largest program allocations (per device; ${unit})`),
        h('thead', {}, h('tr', {}, ['#', 'Size', 'Unpadded', 'Count', 'Shape and layout', 'Module', 'Tensor', 'Kept']
          .map((c, i) => h('th', { scope: 'col', class: i && i < 4 ? 'num' : null }, c)))),
        h('tbody', {}, x.largest_allocations.map((a, i) => {
          const at = `${base}.largest_allocations.${i}`;
          return h('tr', {}, h('td', { class: 'num' }, String(i + 1)), metric(report, `${at}.size`, unit, 'td'),
            metric(report, `${at}.unpadded_size`, unit, 'td'), metric(report, `${at}.count`, null, 'td'),
            h('td', { class: 'mono' }, a.shape), h('td', {}, a.module), h('td', {}, a.tensor),
            h('td', {}, a.kept ? 'always' : 'unless rematerialized'));
        })))));
}

// Module tree: rows follow report.modules (depth-first); a module row's button shows or hides its
// descendants. The tree opens collapsed (the top-level modules: embeddings, layer × L, head), so the answer
// is not pushed down by dozens of rows; the paths the reader opened survive re-renders, so typing
// elsewhere does not reset the tree.
const expanded = new Set();

function applyCollapse(tbody) {
  let hideBelow = Infinity;
  for (const row of tbody.rows) {
    const depth = Number(row.dataset.depth);
    if (depth <= hideBelow) hideBelow = Infinity;
    row.hidden = depth > hideBelow;
    if (!row.hidden && row.querySelector('button.tree') && !expanded.has(row.dataset.path)) hideBelow = depth;
  }
}

export function renderModuleTable(table, report, unit) {
  const mods = report.modules || [];
  const tbody = h('tbody', {}, mods.map((m, i) => {
    const base = `modules.${i}`;
    const parent = mods[i + 1]?.depth > m.depth;
    const open = expanded.has(m.path);
    const name = parent
      ? h('button', { type: 'button', class: 'tree', 'aria-expanded': String(open), onclick: (e) => {
          const now = e.currentTarget.getAttribute('aria-expanded') !== 'true';
          e.currentTarget.setAttribute('aria-expanded', String(now));
          if (now) expanded.add(m.path);
          else expanded.delete(m.path);
          applyCollapse(tbody);
        } }, m.name)
      : h('span', { class: 'leaf' }, m.name);
    const repeat = m.path === 'layer' || m.repeat > 1
      ? h('span', { class: 'repeat' }, ' × ', metric(report, `${base}.repeat`), ' (per layer)')
      : null;
    return h('tr', { 'data-depth': m.depth, 'data-path': m.path, class: m.kind },
      h('th', { scope: 'row', style: `padding-left:${0.4 + m.depth * 1.1}rem` }, name, repeat),
      h('td', { class: 'shape' }, (m.param_shapes || []).join(', ')),
      metric(report, `${base}.parameters`, null, 'td'),
      metric(report, `${base}.weight_bytes`, unit, 'td'),
      metric(report, `${base}.activation_bytes`, unit, 'td'));
  }));
  table.replaceChildren(
    h('caption', { class: 'sr-only' }, `Parameters and memory per module, per device after tensor parallelism, in ${unit}`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Module'), h('th', { scope: 'col', class: 'shape' }, 'Param shape'), h('th', { scope: 'col', class: 'num' }, 'Parameters'),
      h('th', { scope: 'col', class: 'num' }, `Weights (${unit})`), h('th', { scope: 'col', class: 'num' }, `Activations per microbatch (${unit})`))),
    tbody,
  );
  applyCollapse(tbody);
}

export function renderNotes(list, report) {
  const notes = report.notes || [];
  list.replaceChildren(...notes.map((n) => h('li', {}, n)));
  list.nextElementSibling?.toggleAttribute('hidden', notes.length > 0);
}
