// Under Node only: the Emscripten 3.1.6 glue uses require and __dirname, which an ES module
// lacks (docs/toolchain.md, quirk 4: ES module glue under Node). Browsers and workers skip this block.
var require, __dirname;
if (typeof process === 'object' && process.versions && typeof process.versions.node === 'string') {
  const { createRequire } = await import('node:module');
  const { fileURLToPath } = await import('node:url');
  require = createRequire(import.meta.url);
  __dirname = fileURLToPath(new URL('.', import.meta.url));
}
