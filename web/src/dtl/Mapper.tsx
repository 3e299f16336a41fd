/**
 * The mapping view: the source tree on the left, the target tree on the right, and an SVG overlay
 * drawing a curve for every plain copy. Dragging a source field onto a target field (pointer events,
 * so it works with mouse, pen and touch) reports the pair; the curve follows the pointer meanwhile.
 * Without a pointer: Tab to a source field, Enter, Tab to a target field, Enter.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { SchemaFieldJson as SchemaField } from '../../../src/client/routes.ts';
import type { Link } from './model.ts';
import { SchemaTree } from './SchemaTree.tsx';

interface Drag {
  from: string;
  x: number;
  y: number;
}

interface Curve {
  key: string;
  d: string;
}

export function Mapper({
  source,
  target,
  links,
  onMap,
}: {
  source: SchemaField[];
  target: SchemaField[];
  links: Link[];
  onMap(from: string, to: string): void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const [curves, setCurves] = useState<Curve[]>([]);
  const [tick, setTick] = useState(0);
  const [picked, setPicked] = useState('');
  const relayout = useCallback(() => setTick((value) => value + 1), []);

  const anchor = useCallback((side: 'source' | 'target', path: string) => {
    const root = box.current;
    const row = root?.querySelector<HTMLElement>(`[data-side="${side}"][data-path="${CSS.escape(path)}"]`);
    if (!root || !row) return null;
    const outer = root.getBoundingClientRect();
    const rect = row.getBoundingClientRect();
    return { x: side === 'source' ? rect.right - outer.left : rect.left - outer.left, y: rect.top + rect.height / 2 - outer.top };
  }, []);

  useLayoutEffect(() => {
    const next: Curve[] = [];
    for (const link of links) {
      const a = anchor('source', link.source);
      const b = anchor('target', link.target);
      if (!a || !b) continue;
      const bend = Math.max(30, (b.x - a.x) / 2);
      next.push({ key: `${link.path.join('.')}`, d: `M ${a.x} ${a.y} C ${a.x + bend} ${a.y}, ${b.x - bend} ${b.y}, ${b.x} ${b.y}` });
    }
    setCurves(next);
  }, [links, source, target, tick, anchor]);

  useEffect(() => {
    window.addEventListener('resize', relayout);
    return () => window.removeEventListener('resize', relayout);
  }, [relayout]);

  function start(path: string, event: React.PointerEvent) {
    if (event.button !== 0) return;
    event.preventDefault();
    const outer = box.current!.getBoundingClientRect();
    setDrag({ from: path, x: event.clientX - outer.left, y: event.clientY - outer.top });
  }
  function move(event: React.PointerEvent) {
    if (!drag) return;
    const outer = box.current!.getBoundingClientRect();
    setDrag({ ...drag, x: event.clientX - outer.left, y: event.clientY - outer.top });
  }
  function end(event: React.PointerEvent) {
    if (!drag) return;
    const hit = document.elementFromPoint(event.clientX, event.clientY)?.closest<HTMLElement>('[data-side="target"]');
    if (hit?.dataset['path']) onMap(drag.from, hit.dataset['path']);
    setDrag(null);
  }

  const dragStart = drag ? anchor('source', drag.from) : null;
  return (
    <div className={`mapper${drag ? ' dragging' : ''}`} ref={box} onPointerMove={move} onPointerUp={end} onPointerLeave={() => setDrag(null)}>
      <div className="mapper-side" onScroll={relayout} aria-label="Source fields" role="tree">
        <h3>Source</h3>
        <SchemaTree side="source" fields={source} onPointerDown={start} onPick={setPicked} picked={picked} onExpand={relayout} />
      </div>
      <div className="mapper-gap" />
      <div className="mapper-side" onScroll={relayout} aria-label="Target fields" role="tree">
        <h3>Target</h3>
        <SchemaTree side="target" fields={target} onPick={(to) => picked && (onMap(picked, to), setPicked(''))} onExpand={relayout} />
      </div>
      <svg className="mapper-links" aria-hidden="true">
        {curves.map((curve) => (
          <path key={curve.key} d={curve.d} className="mapper-link" />
        ))}
        {drag && dragStart ? <path d={`M ${dragStart.x} ${dragStart.y} L ${drag.x} ${drag.y}`} className="mapper-link pending" /> : null}
      </svg>
    </div>
  );
}
