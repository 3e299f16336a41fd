/**
 * Asks before unsaved edits are lost: when the tab is closed or reloaded (the browser's own
 * question), when the portal's hash changes — a link, the back button or a typed address — and
 * when the shell would replace the page without a hash change (namespace switch, sign-out).
 */
import { useEffect } from 'react';

/** The questions of the pages that hold unsaved edits now. */
const guards = new Set<{ question: string }>();

// Registered once, when the portal's code loads: before the router adds its own listener. Chromium
// runs the window's hashchange listeners in the order they were added — a capturing listener added
// after the router's runs after it (seen in test/portal/dtl-editor.test.ts) — and React renders the
// new route as soon as the router's listener returns, unmounting the page: a listener the page
// added itself would be gone before it ran. A refusal stops the event before the router
// sees it and puts the address the user left back, without a new history entry.
window.addEventListener(
  'hashchange',
  (event) => {
    if (mayLeave()) return;
    event.stopImmediatePropagation();
    window.history.replaceState(window.history.state, '', event.oldURL);
  },
  true,
);
window.addEventListener('beforeunload', (event) => {
  if (guards.size > 0) event.preventDefault();
});

/** True when no page holds unsaved edits, or the user agrees to lose them. */
export function mayLeave(): boolean {
  const guard = [...guards].at(-1);
  return !guard || window.confirm(guard.question);
}

/** While `dirty`, leaving the page asks `question` first (and closing the tab asks the browser's question). */
export function useUnsavedGuard(dirty: boolean, question: string): void {
  useEffect(() => {
    if (!dirty) return;
    const guard = { question };
    guards.add(guard);
    return () => void guards.delete(guard);
  }, [dirty, question]);
}
