/** Hash routing (`#/messages?session=3`): the server serves one index.html, every page is a hash. */
import { useEffect, useState } from 'react';

export interface Route {
  /** Path segments after `#/`, decoded. */
  parts: string[];
  query: URLSearchParams;
}

function current(): Route {
  const hash = window.location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = hash.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** A link target: `href('messages', 12)` → `#/messages/12`, with an optional query. */
export function href(...parts: Array<string | number | Record<string, string | number | undefined>>): string {
  const segments: string[] = [];
  let query = '';
  for (const part of parts) {
    if (typeof part === 'object') {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(part)) if (value !== undefined && value !== '') params.set(key, String(value));
      query = params.toString() ? `?${params.toString()}` : '';
    } else segments.push(encodeURIComponent(String(part)));
  }
  return `#/${segments.join('/')}${query}`;
}

export function navigate(target: string): void {
  window.location.hash = target.replace(/^#/, '');
}
