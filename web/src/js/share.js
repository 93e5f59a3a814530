// Sharing: the page URL with the state fragment and an iframe snippet for the embed view (the results as Markdown are
// the engine's: app.js writeMarkdown). Copying falls back to selecting the text when the clipboard is refused.
import { RESIZE_MESSAGE } from './embed.js';

export function pageUrl(fragment, embed) {
  const url = new URL(window.location.href);
  if (embed) url.searchParams.set('embed', '1');
  else url.searchParams.delete('embed');
  url.hash = fragment;
  return url.href;
}

// The iframe and the one-line listener that resizes it to the height the embedded page reports (embed.js);
// where a wiki strips scripts the iframe keeps its initial height and scrolls.
export const iframeSnippet = (fragment) =>
  `<iframe src="${pageUrl(fragment, true).replaceAll('"', '%22')}" title="shardcalc memory estimate" width="100%" height="640" style="border:0" data-shardcalc></iframe>` +
  `<script>addEventListener("message",function(e){var d=e.data;if(!d||d.type!=="${RESIZE_MESSAGE}"||!(d.height>0))return;` +
  `document.querySelectorAll("iframe[data-shardcalc]").forEach(function(f){if(f.contentWindow===e.source)f.style.height=Math.min(d.height,20000)+"px"})})</script>`;

// Writes `text` into the readonly `field`, then tries the clipboard; `note` says what happened.
export async function copyText(text, field, note) {
  field.value = text;
  try {
    await navigator.clipboard.writeText(text);
    note.textContent = 'Copied.';
  } catch {
    field.focus();
    field.select();
    note.textContent = 'Clipboard unavailable: the text is selected, press Ctrl+C.';
  }
}
