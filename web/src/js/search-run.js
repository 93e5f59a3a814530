// Runs the engine's plan search in slices on an engine module (in the worker, or on the main thread
// where no worker starts): progress after each slice, a chance to stop between slices. The search
// itself, its ranking and every figure are the engine's (SearchSession in engine/io/api.h).
const SLICE = 400; // plans per slice: a few milliseconds of work

export async function runSearch(module, text, onProgress, cancelled) {
  const session = new module.SearchSession(text);
  try {
    while (!session.done()) {
      session.step(SLICE);
      onProgress(session.progress());
      await new Promise((resolve) => setTimeout(resolve, 0)); // lets a cancel message in
      if (cancelled()) return null;
    }
    return session.result();
  } finally {
    session.delete();
  }
}
