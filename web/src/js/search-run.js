// Runs the engine's plan search in slices on an engine module (in the worker, or on the main thread
// where no worker starts): slices back to back for a turn of TURN_MS, then progress and a chance to stop. The search
// itself, its ranking and every figure are the engine's (SearchSession in engine/io/api.h). With helpers (other
// workers, engine-worker.js), the search runs in parts side by side: each helper walks one part and hands back its
// findings, which the first part joins (engine/search/search.h SearchPart: the same answer as one search).
const SLICE = 400; // plans per slice: a few milliseconds of work
const TURN_MS = 30; // slices run back to back this long between progress reports and a look at the messages

// Lets the messages queued so far in (a cancel) through a MessageChannel: a setTimeout(0) nested this deep waits at
// least 4 ms (the HTML timer clamp), which over a hundred slices added half a second to a one-second search.
const turn = () => new Promise((resolve) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
  channel.port2.postMessage(null);
});

// Steps a session to its end; false when cancelled first.
async function walk(session, onProgress, cancelled) {
  while (!session.done()) {
    const start = performance.now();
    do session.step(SLICE); while (!session.done() && performance.now() - start < TURN_MS);
    onProgress(session.progress());
    await turn();
    if (cancelled()) return false;
  }
  return true;
}

// One part of a search (a helper's): its findings as the engine's text, or null when cancelled.
export async function runPart(module, text, part, parts, onProgress, cancelled) {
  const session = new module.SearchSession(text, part, parts);
  try {
    return (await walk(session, onProgress, cancelled)) ? session.findings() : null;
  } finally {
    session.delete();
  }
}

// The whole search: this module walks the first part, each helper ({run(text, part, parts, onProgress) -> {findings:
// Promise<text | null>, cancel()}}) one of the others; null when cancelled.
export async function runSearch(module, text, onProgress, cancelled, helpers = []) {
  const parts = helpers.length + 1;
  const progress = new Array(parts).fill(0);
  const report = (part) => (fraction) => {
    progress[part] = fraction;
    onProgress(progress.reduce((a, b) => a + b, 0) / parts);
  };
  const others = helpers.map((helper, i) => helper.run(text, i + 1, parts, report(i + 1)));
  const session = parts > 1 ? new module.SearchSession(text, 0, parts) : new module.SearchSession(text);
  try {
    if (!(await walk(session, report(0), cancelled))) {
      for (const other of others) other.cancel();
      return null;
    }
    for (const other of others) {
      const findings = await other.findings;
      if (findings === null || cancelled()) {
        for (const o of others) o.cancel();
        return null;
      }
      session.join(findings);
    }
    return session.result();
  } finally {
    session.delete();
  }
}

// A search's other parts run side by side in helpers: more workers of the engine's worker script, one for each other
// core the browser reports (at most three), started by the first search and kept (js/engine-worker.js answers their
// 'warm' and 'search-part'). Each loads the whole engine and says so; a search splits over the helpers ready when it
// starts (the first search, while they load, runs in one part: the same plans and figures, only its count of timed
// plans differs). A helper that fails has its part walked by the engine of the worker that asked (`whole()`).
let helpers = null;
let nextPart = 0;
export function readyHelpers(whole) {
  if (!helpers) {
    helpers = [];
    const cores = Math.min(self.navigator?.hardwareConcurrency || 1, 4);
    for (let i = 1; i < cores && typeof Worker !== 'undefined'; i += 1) {
      try {
        helpers.push(helper(new Worker(self.location.href, { type: 'module' }), whole));
      } catch {
        break; // a browser that starts no worker from a worker: searches run in one part
      }
    }
  }
  return helpers.filter((h) => h.ready());
}

function helper(worker, whole) {
  const pending = new Map(); // part id -> {resolve, onProgress, local}
  let broken = false;
  let loaded = false;
  worker.onmessage = ({ data }) => {
    if (data.op === 'warm') {
      loaded = data.ready === true;
      return;
    }
    const part = pending.get(data.id);
    if (!part) return;
    if ('progress' in data) return part.onProgress(data.progress);
    pending.delete(data.id);
    part.resolve(data.error ? JSON.stringify({ ok: false, error: { path: '', message: data.error } }) : data.result);
  };
  worker.onerror = (event) => {
    event.preventDefault?.();
    broken = true;
    for (const part of pending.values()) part.resolve(part.local());
    pending.clear();
  };
  worker.postMessage({ op: 'warm' });
  return {
    ready: () => loaded && !broken,
    run(text, part, parts, onProgress) {
      const id = nextPart++;
      let cancelled = false;
      const local = async () => runPart(await whole(), text, part, parts, onProgress, () => cancelled);
      const findings = broken ? local() : new Promise((resolve) => pending.set(id, { resolve, onProgress, local }));
      if (!broken) worker.postMessage({ id, op: 'search-part', text, part, parts });
      return {
        findings,
        cancel: () => {
          cancelled = true;
          worker.postMessage({ op: 'cancel', target: id });
        },
      };
    },
  };
}
