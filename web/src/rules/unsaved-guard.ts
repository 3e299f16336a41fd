/**
 * Warns before unsaved edits are lost: closing or reloading the tab, and leaving the page inside the
 * portal — a link, the back button or a typed address all change the hash.
 */
import { useEffect } from 'react';

/** What to ask before leaving, while the page on screen has unsaved edits. */
let question: string | null = null;

// Listeners of one event run in the order they were added, and the router adds its own after the
// first render: this one, added when the module loads, runs first, so a refusal stops the event
// before the route (and the page with its edits) changes, and the address is put back.
window.addEventListener('hashchange', (event) => {
  if (question === null || window.confirm(question)) return;
  event.stopImmediatePropagation();
  window.history.replaceState(window.history.state, '', event.oldURL);
});

export function useUnsavedGuard(dirty: boolean, ask: string): void {
  useEffect(() => {
    if (!dirty) return;
    question = ask;
    const unload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', unload);
    return () => {
      question = null;
      window.removeEventListener('beforeunload', unload);
    };
  }, [dirty, ask]);
}
