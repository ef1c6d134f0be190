// The report's chart: one SVG (no dependency), throughput and p99 per workload and system, side
// by side. Each workload's bars are scaled to that workload's largest value (the numbers are
// printed on the bars), since login and get differ by two orders of magnitude.
const COLORS = { ours: '#2563eb', pocketbase: '#16a34a', parse: '#ea580c' };
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** rows: [{ name, bySystem: { key: { rps, p99Ms } } }]; systems: [{ key, name }] */
export function renderChart(title, rows, systems) {
  const keys = systems.map((s) => s.key);
  const bar = 14;
  const labelW = 110;
  const panelW = 340;
  const gap = 30;
  const width = labelW + 2 * panelW + gap + 20;
  let y = 62;
  const parts = [];
  for (const row of rows) {
    const present = keys.filter((k) => row.bySystem[k]);
    if (!present.length) continue;
    const maxRps = Math.max(...present.map((k) => row.bySystem[k].rps || 0), 1e-9);
    const maxP99 = Math.max(...present.map((k) => row.bySystem[k].p99Ms || 0), 1e-9);
    parts.push(`<text x="4" y="${y + 11}" font-weight="bold">${esc(row.name)}</text>`);
    for (const k of present) {
      const { rps, p99Ms } = row.bySystem[k];
      const w1 = Math.max(1, ((rps || 0) / maxRps) * (panelW - 60));
      const w2 = Math.max(1, ((p99Ms || 0) / maxP99) * (panelW - 60));
      const x2 = labelW + panelW + gap;
      parts.push(
        `<rect x="${labelW}" y="${y}" width="${w1.toFixed(1)}" height="${bar - 2}" fill="${COLORS[k] ?? '#666'}"/>`,
        `<text x="${(labelW + w1 + 4).toFixed(1)}" y="${y + 10}">${Math.round(rps)}</text>`,
        `<rect x="${x2}" y="${y}" width="${w2.toFixed(1)}" height="${bar - 2}" fill="${COLORS[k] ?? '#666'}" opacity="0.75"/>`,
        `<text x="${(x2 + w2 + 4).toFixed(1)}" y="${y + 10}">${(p99Ms ?? NaN).toFixed(1)}</text>`,
      );
      y += bar;
    }
    y += 10;
  }
  const legend = systems
    .map(
      (s, i) =>
        `<rect x="${labelW + i * 200}" y="${y + 4}" width="10" height="10" fill="${COLORS[s.key] ?? '#666'}"/>` +
        `<text x="${labelW + i * 200 + 14}" y="${y + 13}">${esc(s.name)}</text>`,
    )
    .join('');
  const height = y + 26;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="4" y="18" font-size="14" font-weight="bold">${esc(title)}</text>`,
    `<text x="${labelW}" y="48" font-weight="bold">throughput (req/s, higher is better)</text>`,
    `<text x="${labelW + panelW + gap}" y="48" font-weight="bold">p99 latency (ms, lower is better)</text>`,
    ...parts,
    legend,
    '</svg>',
    '',
  ].join('\n');
}
