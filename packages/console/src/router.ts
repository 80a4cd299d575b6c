import { useEffect, useState } from 'preact/hooks';

/** The console's paths, below /admin/: the server answers every one of them with the same page. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener('popstate', update);
    addEventListener('console:navigate', update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener('console:navigate', update);
    };
  }, []);
  return path;
}

export function navigate(path: string): void {
  history.pushState(null, '', path);
  dispatchEvent(new Event('console:navigate'));
  // Focus moves to the new page's heading, so keyboard and screen reader users know the page changed.
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

/** Same-origin links under /admin/ change the page without a reload; modified clicks keep the browser's meaning. */
export function interceptLinks(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest('a');
  const href = anchor?.getAttribute('href');
  if (!anchor || !href?.startsWith('/admin/') || anchor.target) return;
  event.preventDefault();
  navigate(href);
}
