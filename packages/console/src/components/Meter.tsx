import { percentOf } from '../lib/format';

/** Used against a limit, as text and a bar (the text says it all; the bar is a glance). */
export function UsageMeter(p: { label: string; used: number; limit: number; format: (n: number) => string }) {
  const pct = percentOf(p.used, p.limit);
  const level = pct >= 90 ? 'high' : pct >= 70 ? 'mid' : 'low';
  return (
    <div className="usage">
      <div className="usage-text">
        <span className="usage-label">{p.label}</span>
        <span>
          {p.format(p.used)} of {p.format(p.limit)} ({pct}%)
        </span>
      </div>
      <progress className={`usage-bar ${level}`} max={100} value={pct} aria-label={`${p.label}: ${pct}%`} />
    </div>
  );
}
