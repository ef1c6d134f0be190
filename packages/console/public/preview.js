// @ts-check
/*
 * The console's mail preview page (served by the gateway at /console/preview.html with a CSP of
 * its own). The console frames this page with sandbox="allow-scripts" and no allow-same-origin,
 * so it runs in an opaque origin: it reaches neither the console's cookies, storage nor DOM. The
 * console posts it the rendered HTML of a template; it shows it in the nested sandbox="" frame,
 * where no script runs at all, and which has no way to navigate anything but itself.
 */
(() => {
  const frame = document.querySelector('iframe');
  // The page's own URL still names the console's origin (its document's origin is opaque).
  const consoleOrigin = new URL(window.location.href).origin;
  if (!frame || window.parent === window) return;
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || event.origin !== consoleOrigin) return;
    /** @type {unknown} */
    const data = event.data;
    if (typeof data !== 'object' || data === null) return;
    const { type, html } = /** @type {{ type?: unknown, html?: unknown }} */ (data);
    if (type !== 'baas-mail-preview' || typeof html !== 'string') return;
    frame.srcdoc = html;
  });
  window.parent.postMessage({ type: 'baas-mail-preview-ready' }, consoleOrigin);
})();
