// Runs the engine's plan search in slices on an engine module (in the worker, or on the main thread
// where no worker starts): slices back to back for a turn of TURN_MS, then progress and a chance to stop. The search
// itself, its ranking and every figure are the engine's (SearchSession in engine/io/api.h).
const SLICE = 400; // plans per slice: a few milliseconds of work
const TURN_MS = 30; // slices run back to back this long between progress reports and a look at the messages

// Lets the messages queued so far in (a cancel) through a MessageChannel: a setTimeout(0) nested this deep waits at
// least 4 ms (the HTML timer clamp), which over a hundred slices added half a second to a one-second search.
const turn = () => new Promise((resolve) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
  channel.port2.postMessage(null);
});

export async function runSearch(module, text, onProgress, cancelled) {
  const session = new module.SearchSession(text);
  try {
    while (!session.done()) {
      const start = performance.now();
      do session.step(SLICE); while (!session.done() && performance.now() - start < TURN_MS);
      onProgress(session.progress());
      await turn();
      if (cancelled()) return null;
    }
    return session.result();
  } finally {
    session.delete();
  }
}
