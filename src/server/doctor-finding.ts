/** One answer of `conveyor doctor`: ok, warning (works, but act soon) or problem (fails; exit 1). */
export type Verdict = 'ok' | 'warning' | 'problem';

export interface Finding {
  verdict: Verdict;
  text: string;
}
