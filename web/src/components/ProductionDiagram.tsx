/**
 * The items of a production as a left-to-right diagram: services, processes, operations (and other
 * components) in columns, with the connections between them (from the target settings, and the flows
 * seen while it runs). Plain SVG; each node is focusable. The drawing scales down to the width it is
 * given (never cut off); the monitor colours each node by its health.
 */
import type { ItemStateJson as ItemState } from '../../../src/client/routes.ts';

const columns = ['service', 'process', 'operation', 'component'] as const;
const titles: Record<string, string> = { service: 'Services', process: 'Processes', operation: 'Operations', component: 'Other' };
const nodeWidth = 180;
const nodeHeight = 54;
const gapX = 64;
const gapY = 18;
const top = 36;

export interface NodeBox {
  item: ItemState;
  x: number;
  y: number;
}

export function layout(items: ItemState[]): { boxes: NodeBox[]; width: number; height: number } {
  const used = columns.filter((column) => items.some((item) => columnOf(item) === column));
  const boxes: NodeBox[] = [];
  let rows = 0;
  used.forEach((column, index) => {
    const members = items.filter((item) => columnOf(item) === column);
    rows = Math.max(rows, members.length);
    members.forEach((item, row) => boxes.push({ item, x: 10 + index * (nodeWidth + gapX), y: top + row * (nodeHeight + gapY) }));
  });
  return { boxes, width: 20 + used.length * (nodeWidth + gapX) - gapX, height: top + rows * (nodeHeight + gapY) + 10 };
}

function columnOf(item: ItemState): string {
  return (columns as readonly string[]).includes(item.kind) ? item.kind : 'component';
}

/** How the monitor sees an item: ok (green), degraded (amber), down (red). */
export type ItemHealth = 'ok' | 'degraded' | 'down';

function stateClass(item: ItemState): string {
  if (item.error || item.state === 'error') return 'node-error';
  if (!item.enabled) return 'node-disabled';
  return item.state === 'running' ? 'node-running' : 'node-stopped';
}

export function ProductionDiagram({
  items,
  selected,
  onSelect,
  health,
}: {
  items: ItemState[];
  selected: string;
  onSelect(name: string): void;
  /** Per item name, its health (the monitor page): the node is coloured by it. */
  health?: ReadonlyMap<string, ItemHealth>;
}) {
  const { boxes, width, height } = layout(items);
  const drawnWidth = Math.max(width, 400);
  const byName = new Map(boxes.map((box) => [box.item.name, box]));
  const headers = [...new Set(boxes.map((box) => box.x))].map((x) => ({ x, column: columnOf(boxes.find((box) => box.x === x)!.item) }));
  return (
    <div className="diagram-scroll">
      <svg
        className="diagram"
        viewBox={`0 0 ${drawnWidth} ${height}`}
        width="100%"
        style={{ maxWidth: drawnWidth }}
        preserveAspectRatio="xMinYMin meet"
        role="group"
        aria-label="Production diagram"
      >
        <defs>
          <marker id="edge-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#8a97a5" />
          </marker>
        </defs>
        {headers.map(({ x, column }) => (
          <text key={column} x={x + nodeWidth / 2} y={18} textAnchor="middle" className="diagram-column">
            {titles[column]}
          </text>
        ))}
        {boxes.flatMap((from) =>
          from.item.targets.map((target) => {
            const to = byName.get(target);
            if (!to) return null;
            const x1 = from.x + nodeWidth;
            const y1 = from.y + nodeHeight / 2;
            const x2 = to.x;
            const y2 = to.y + nodeHeight / 2;
            const bend = Math.max(40, Math.abs(x2 - x1) / 2);
            return (
              <path
                key={`${from.item.name}->${target}`}
                className="diagram-edge"
                d={`M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`}
                markerEnd="url(#edge-arrow)"
              />
            );
          }),
        )}
        {boxes.map(({ item, x, y }) => (
          <g
            key={item.name}
            className={`diagram-node ${stateClass(item)}${health?.has(item.name) ? ` health-${health.get(item.name)}` : ''}${selected === item.name ? ' selected' : ''}`}
            data-health={health?.get(item.name)}
            transform={`translate(${x},${y})`}
            tabIndex={0}
            role="button"
            aria-label={`Item ${item.name}`}
            aria-pressed={selected === item.name}
            onClick={() => onSelect(item.name)}
            onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), onSelect(item.name))}
          >
            <rect width={nodeWidth} height={nodeHeight} rx={8} />
            <circle cx={14} cy={17} r={5} className="diagram-dot" />
            <text x={26} y={21} className="diagram-name">
              {item.name.length > 20 ? `${item.name.slice(0, 19)}…` : item.name}
            </text>
            <text x={14} y={41} className="diagram-meta">
              {`${item.enabled ? item.state : 'disabled'} · queue ${item.queued}${item.delivered ? ` (+${item.delivered})` : ''}${item.error ? ' · error' : ''}`}
            </text>
            <title>{`${item.name} (${item.classname})${health?.has(item.name) ? ` · ${health.get(item.name)}` : ''}${item.error ? `\n${item.error}` : ''}`}</title>
          </g>
        ))}
      </svg>
    </div>
  );
}
