// The page's engine on the inputs the schema-driven generator draws (issue 30's bound: no input under 64 KB takes more
// than 1 s or 1 GB in the page): tests/generated_scenarios.py --draw N --searches gives estimates, serving estimates and
// searches, kernel tables, RL actors, config.json imports and plan searches; each runs through the whole WebAssembly
// engine under Node (a search in the page's slices, js/search-run.js), and the slowest of each command run again in
// headless Chromium, in the engine the page's worker loads from web/dist. Prints the times and the engine's memory; a
// measurement, never an assertion (the CLI's own bound is checked by the generator fuzzer, tests/generated_scenarios.py).
// Run after scripts/build.sh wasm and scripts/build-web.sh:  node scripts/bench-generated.mjs [N] [SEED]
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { serve } from '../tests/web/server.mjs';
import { launch } from '../tests/web/browser.mjs';

const BOUND_MS = 1000;
const BOUND_BYTES = 1 << 30;
const SLICE = 400; // plans per search slice, as js/search-run.js runs them

const root = fileURLToPath(new URL('..', import.meta.url));
const count = Number(process.argv[2] ?? 400);
const seed = String(process.argv[3] ?? 20261127);
const out = join(root, 'build', 'bench-generated');
const wasmDir = join(root, 'build-wasm', 'wasm');

const drawn = execFileSync('python3', [join(root, 'tests', 'generated_scenarios.py'), join(root, 'build', 'engine', 'shardcalc'),
  '--draw', String(count), '--searches', '--seed', seed], { maxBuffer: 1 << 28 })
  .toString().trim().split('\n').map((line) => JSON.parse(line));

// One input through an engine module: the answer's text. The same function runs in Node and, as its source, in the
// page (page.evaluate), so both time the same calls.
function answer(engine, command, input, slice) {
  switch (command) {
    case 'estimate': return engine.evaluate(input);
    case 'serve': return engine.serve(input, '');
    case 'kernels': return engine.kernels(input, -1);
    case 'rl': return engine.rl(input, '');
    case 'import': return engine.importConfig(input);
    case 'search': {
      const session = new engine.SearchSession(input);
      try {
        while (!session.done()) session.step(slice);
        return session.result();
      } finally {
        session.delete();
      }
    }
    default: throw new Error(`unknown command ${command}`);
  }
}

const { default: createShardcalc } = await import(join(wasmDir, 'shardcalc.mjs'));
const engine = await createShardcalc({ wasmBinary: await readFile(join(wasmDir, 'shardcalc.wasm')) });
const slowest = new Map(); // command -> {ms, input, bytes}
const runs = new Map();
let total = 0;
for (const { command, input } of drawn) {
  const start = performance.now();
  const text = answer(engine, command, input, SLICE);
  const ms = performance.now() - start;
  total += ms;
  runs.set(command, (runs.get(command) ?? 0) + 1);
  if (!(slowest.get(command)?.ms >= ms)) slowest.set(command, { ms, input, bytes: text.length });
}
// WebAssembly memory only grows: its size after every input is the most any one of them needed.
const heap = engine.HEAP8?.length ?? engine.wasmMemory?.buffer.byteLength ?? 0;

const within = (ms) => (ms <= BOUND_MS ? 'within' : 'OVER');
console.log(`${drawn.length} drawn inputs (seed ${seed}) through the whole engine under Node ${process.version}: ${(total / 1000).toFixed(1)} s in all`);
await mkdir(out, { recursive: true });
for (const [command, s] of [...slowest].sort((a, b) => b[1].ms - a[1].ms)) {
  await writeFile(join(out, `slowest-${command}.json`), s.input);
  console.log(`  ${command.padEnd(8)} ${String(runs.get(command)).padStart(5)} runs, slowest ${s.ms.toFixed(1).padStart(7)} ms ` +
    `(answer ${s.bytes.toLocaleString('en-US')} bytes; bound ${BOUND_MS} ms: ${within(s.ms)})`);
}
console.log(`  engine memory after all of them: ${(heap / 2 ** 20).toFixed(0)} MiB (bound ${BOUND_BYTES / 2 ** 30} GiB: ` +
  `${heap <= BOUND_BYTES ? 'within' : 'OVER'}); slowest inputs in ${out}`);

// The slowest input of each command in Chromium, in the engine the page's worker loads (dist/engine/shardcalc.mjs).
const server = await serve(join(root, 'web', 'dist'));
const browser = await launch();
try {
  const page = await browser.newPage();
  // A page of the site's origin without the site's policy (a path it does not serve), so that the timing function
  // can be handed over as source; the engine is the page's own file, and its speed is the same under any policy.
  await page.goto(`${server.url}bench`);
  for (const [command, s] of [...slowest].sort((a, b) => b[1].ms - a[1].ms)) {
    const ms = await page.evaluate(async ({ source, command, input, slice }) => {
      const { default: create } = await import('/engine/shardcalc.mjs');
      window.benchEngine ??= await create();
      const run = new Function(`return (${source})`)();
      const start = performance.now();
      run(window.benchEngine, command, input, slice);
      return performance.now() - start;
    }, { source: answer.toString(), command, input: s.input, slice: SLICE });
    console.log(`  in Chromium (the page's engine): ${command.padEnd(8)} slowest input ${ms.toFixed(1).padStart(7)} ms (${within(ms)})`);
  }
  // The slowest search again as the page's worker runs it where the browser has more than one core: in parts, one in
  // this thread and the others in workers that have loaded the engine (js/engine-worker.js helpers), their findings
  // joined (engine/search/search.h SearchPart).
  const search = slowest.get('search');
  if (search) {
    const { ms, parts } = await page.evaluate(async ({ input, slice }) => {
      const parts = Math.min(navigator.hardwareConcurrency || 1, 4);
      const source = `import create from '${location.origin}/engine/shardcalc.mjs';
        const engine = await create();
        self.onmessage = ({ data }) => {
          const s = new engine.SearchSession(data.input, data.part, data.parts);
          while (!s.done()) s.step(data.slice);
          self.postMessage(s.findings());
          s.delete();
        };
        self.postMessage('ready');`;
      const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
      const helpers = await Promise.all(Array.from({ length: parts - 1 }, () => new Promise((resolve) => {
        const w = new Worker(url, { type: 'module' });
        w.onmessage = () => resolve(w);
      })));
      const start = performance.now();
      const found = helpers.map((w, i) => new Promise((resolve) => {
        w.onmessage = ({ data }) => resolve(data);
        w.postMessage({ input, part: i + 1, parts, slice });
      }));
      const session = new window.benchEngine.SearchSession(input, 0, parts);
      while (!session.done()) session.step(slice);
      for (const f of await Promise.all(found)) session.join(f);
      session.result();
      session.delete();
      const ms = performance.now() - start;
      for (const w of helpers) w.terminate();
      return { ms, parts };
    }, { input: search.input, slice: SLICE });
    console.log(`  in Chromium, in ${parts} parts (the page's worker and its helpers): search slowest input ${ms.toFixed(1).padStart(7)} ms (${within(ms)})`);
  }
} finally {
  await browser.close();
  await server.close();
}
