/** The portal checks an item's schedule as it is typed with the server's own rule (src/core/schedule-spec.ts). */
export { scheduleProblem } from '../core/schedule-spec.ts';
