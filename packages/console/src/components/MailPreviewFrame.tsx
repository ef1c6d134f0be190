import { useEffect, useRef } from 'react';
import { href } from '../router';

/** What the console and the preview page (packages/console/public/preview.js) say to each other. */
const RENDER = 'baas-mail-preview';
const READY = 'baas-mail-preview-ready';

/**
 * Rendered mail HTML, shown without ever running in the console's origin. The frame is the
 * gateway's preview page (/console/preview.html, a CSP of its own) in `sandbox="allow-scripts"`
 * without `allow-same-origin`: an opaque origin that can reach neither the console's cookies,
 * storage nor DOM. The HTML is posted to it, and it shows it in a nested `sandbox=""` frame where
 * no script runs at all. (The console's own CSP could not show mail: no inline styles, no other
 * origin's images, and Trusted Types forbid writing HTML.)
 */
export function MailPreviewFrame({ html, title }: { html: string; title: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const latest = useRef(html);

  useEffect(() => {
    latest.current = html;
    // '*': the page's origin is opaque, there is no other name for it. The HTML is the template
    // being edited, no secret; the window is the frame's own.
    frame.current?.contentWindow?.postMessage({ type: RENDER, html }, '*');
  }, [html]);

  useEffect(() => {
    // The page says when it is ready (after each load of it); it is then sent the latest HTML.
    const onMessage = (event: MessageEvent) => {
      const target = frame.current?.contentWindow;
      if (!target || event.source !== target || event.origin !== 'null') return;
      if ((event.data as { type?: unknown } | null)?.type !== READY) return;
      target.postMessage({ type: RENDER, html: latest.current }, '*');
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, []);

  return (
    <iframe
      ref={frame}
      className="mail-preview-frame"
      src={href('/preview.html')}
      sandbox="allow-scripts"
      referrerPolicy="no-referrer"
      title={title}
    />
  );
}
