// Entry point. The engine (worker + wasm) and the page's own modules load in parallel: the
// engine's start-up is the longest part of the time to the first result, so it must not wait
// for the UI module graph (nor the UI for the engine).
const engine = import('./engine-client.js').then(({ createEngine }) => createEngine());
engine.catch(() => {}); // a failure is reported by app.js when it awaits the promise
import('./app.js').then(({ start }) => start(engine));
