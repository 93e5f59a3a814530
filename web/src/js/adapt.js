// Every choice gives an answer: after the reader picks a model, a device or a framework, the plan's own fields
// (training and parallelism) that the new choice breaks move to the nearest value the engine accepts, and the page
// says what moved. Which values are accepted is the engine's rule, never the page's: each candidate goes through
// engine.choices (engine/io/contract/choices.h), which reads and validates the plan with it exactly as an evaluation would.
// A chunk of its own (web/build.mjs): fetched on the first choice of a preset or on the first error.
import { h } from './dom.js';
import { FIELDS, FRAMEWORKS, dotted, pointer } from './fields.js';
import { count } from './format.js';
import { acceptedFramework } from './guide.js';

// The fields a choice may move: the plan's, not the model or the device the reader chose.
const PLAN_SECTIONS = ['training', 'parallel'];
export const adaptable = (path) =>
  FIELDS.get(path)?.input === true && PLAN_SECTIONS.includes(path.split('.')[0]) && !['ints', 'names'].includes(FIELDS.get(path).type);

async function firstValid(engine, scenario, path, candidates) {
  if (!candidates.length) return undefined;
  const answer = await engine.choices({ scenario, options: { [pointer(path)]: candidates } });
  return answer.ok ? answer.options[pointer(path)].find((o) => o.valid)?.value : undefined;
}

async function step(engine, scenario, path, from, direction) {
  const answer = await engine.choices({ scenario, step: { path: pointer(path), from, direction } });
  return answer.ok && answer.value !== null ? answer.value : undefined;
}

// The value the engine accepts at `path` nearest to `current` (a number, a boolean or a menu value), or undefined
// when it accepts none near it. Integers: the largest valid value among the NEAR values just below, the halvings and the
// powers of two below it (a sequence of 8,192 on a model of 512 positions is thousands of steps away; one request), else the
// next valid value above. Menus and switches: the first other option the engine accepts, in the menu's order.
const NEAR = 16;
export async function suggestion(engine, scenario, path, current) {
  const spec = FIELDS.get(path);
  if (spec.type === 'bool') return firstValid(engine, scenario, path, [!current]);
  if (spec.options) {
    const options = spec.options.map((o) => (spec.type === 'int' ? Number(o) : o)).filter((o) => o !== current);
    return firstValid(engine, scenario, path, options);
  }
  if (spec.type !== 'int' || !Number.isSafeInteger(current)) return undefined;
  const below = new Set();
  for (let v = current - 1; v >= 1 && v >= current - NEAR; v -= 1) below.add(v);
  for (let v = Math.floor(current / 2); v >= 1; v = Math.floor(v / 2)) below.add(v);
  for (let v = 1; v < current; v *= 2) below.add(v); // sizes in training plans are mostly powers of two
  const candidates = [...below].sort((a, b) => b - a);
  return (await firstValid(engine, scenario, path, candidates)) ?? step(engine, scenario, path, current, 1);
}

// After the reader chose a model, a device (`device` true), a framework or an adapter (`adapter` true): a device
// that refuses the framework (a TPU runs xla only) takes the first one the engine accepts there, an adapter the
// first of PEFT's own (plain PyTorch first), then the plan is adapted (adaptPlan).
const PEFT_FIRST = ['pytorch', 'fsdp', 'deepspeed'];
export async function adaptToChoice(engine, plan, world, device = false, adapter = false) {
  const changes = [];
  if (device || adapter) {
    const from = plan.value('framework');
    const order = adapter ? [...PEFT_FIRST, ...FRAMEWORKS.filter((f) => !PEFT_FIRST.includes(f))] : FRAMEWORKS;
    const to = await acceptedFramework(engine, plan.scenario(), order);
    if (to && to !== from) {
      plan.set('framework', to);
      changes.push({ path: 'framework', from, to, reason: adapter ? `adapters are modelled as PEFT runs them, not on ${from}` : `the device does not run ${from}` });
    }
  }
  return [...changes, ...(await adaptPlan(engine, plan, world))];
}

// Moves the plan's fields until the engine accepts the plan, or no move helps. `plan` gives
// {scenario(), value(path), set(path, value)} over the page's entries; `world`: the device count of the plan
// before the choice (report.derived.world_size), which data parallelism then keeps where the engine allows it.
// Returns the moves made, each {path, from, to, reason} (reason: the engine's words for why `from` failed).
export async function adaptPlan(engine, plan, world) {
  const changes = [];
  const tried = new Set();
  for (let round = 0; round < 12; round += 1) {
    const answer = await engine.evaluate(plan.scenario());
    if (answer.ok) {
      await keepWorld(engine, plan, world, answer.report, changes);
      break;
    }
    const errors = answer.errors || [answer.error];
    let moved = false;
    for (const error of errors) {
      const path = dotted(error.path || '/');
      const from = plan.value(path);
      if (!adaptable(path) || tried.has(`${path}=${from}`)) continue;
      tried.add(`${path}=${from}`);
      const to = await suggestion(engine, plan.scenario(), path, from);
      if (to === undefined) continue;
      plan.set(path, to);
      changes.push({ path, from, to, reason: error.message });
      moved = true;
      break; // one move at a time: it may clear other errors too
    }
    if (!moved) break;
  }
  return changes;
}

// A smaller tensor, pipeline or sequence split on the same devices: data parallelism takes up what it freed.
async function keepWorld(engine, plan, world, report, changes) {
  const now = report.derived?.world_size;
  if (!changes.some((c) => c.path.startsWith('parallel.')) || !world || !now || now >= world || world % now !== 0) return;
  const dp = plan.value('parallel.dp') ?? report.scenario?.parallel?.dp;
  if (!Number.isSafeInteger(dp)) return;
  const to = dp * (world / now);
  if ((await firstValid(engine, plan.scenario(), 'parallel.dp', [to])) !== to) return;
  plan.set('parallel.dp', to);
  changes.push({ path: 'parallel.dp', from: dp, to, reason: `keeps the plan on ${world} devices` });
}

// ---- What the page shows of it.

const shown = (v) => (typeof v === 'boolean' ? (v ? 'on' : 'off') : typeof v === 'number' ? count(v) : String(v));

// The moves of a choice in one line, and Undo. Moves made for the same reason share it, said once after the last of
// them (a TPU's xla turns off several dimensions for one reason). The engine's "; allowed: …" tail is left out: the
// move's arrow shows the value taken.
export function showMoves(note, changes, undo) {
  const groups = new Map();
  for (const c of changes) {
    const reason = c.reason.replace(/; allowed: [^;]*$/, '');
    groups.set(reason, [...(groups.get(reason) || []), c]);
  }
  const move = (c) => h('span', { class: 'adapt-move', 'data-path': c.path, title: c.reason },
    `${FIELDS.get(c.path)?.label ?? c.path} ${shown(c.from)} → ${shown(c.to)}`);
  const group = ([reason, moves]) => [...moves.flatMap((c, i) => (i ? [', ', move(c)] : [move(c)])),
    h('span', { class: 'adapt-why' }, ` (${reason})`)];
  note.replaceChildren(h('span', {}, 'Adapted to your choice: '), ...[...groups].flatMap((g, i) => (i ? ['; ', ...group(g)] : group(g))),
    '. ', h('button', { type: 'button', class: 'adapt-undo', onclick: undo }, 'Undo'));
}

// A "Use <value>" button on each error of the banner `box` whose field the engine can move to a value it accepts;
// `apply(path, value)` sets the field as the reader would. `current()` is false once newer errors replaced these.
export async function offerFixes(engine, box, plan, apply, current) {
  const scenario = plan.scenario();
  for (const item of box.querySelectorAll('li[data-error-path]')) {
    const path = dotted(item.dataset.errorPath || '/');
    if (!adaptable(path)) continue;
    const value = await suggestion(engine, scenario, path, plan.value(path));
    if (!current()) return;
    if (value === undefined) continue;
    item.append(' ', h('button', { type: 'button', class: 'fix', 'data-fix': path, 'aria-label': `Use ${shown(value)} for ${FIELDS.get(path).label}`,
      onclick: () => apply(path, value) }, `Use ${shown(value)}`));
  }
}
