// The embedded view (?embed=1) tells the page that embeds it how tall its content is, whenever that changes,
// so the iframe can fit it exactly (no inner scroll bar, nothing cut off). The message carries only a height:
// it is posted to any origin because the embedding wiki's origin is not known, and says nothing private.
// The listener that applies it is part of the copied snippet (share.js iframeSnippet, docs/page.md).
export const RESIZE_MESSAGE = 'shardcalc:resize';

export function reportHeight() {
  if (window.parent === window) return;
  let last = 0;
  const post = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: RESIZE_MESSAGE, height }, '*');
  };
  new ResizeObserver(post).observe(document.documentElement);
  post();
}
