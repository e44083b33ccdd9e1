"""The page's inline style and script (no network, nothing fetched)."""

from __future__ import annotations

CSS = """
:root { --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0b5cad;
  --good: #1a7f37; --bad: #b42318; --bg: #ffffff; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--bg); }
main, footer { max-width: 960px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.6rem; margin: 0.5rem 0 0; } h2 { font-size: 1.25rem; margin-top: 2rem;
  border-bottom: 1px solid var(--line); } header p { color: var(--muted); margin: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(190px, 1fr)); gap: 12px;
  margin-top: 1rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; background: var(--soft); }
.card h3 { margin: 0; font-size: 1rem; } .big { font-size: 2rem; font-weight: 700; margin: 0; }
.den { margin: 0; } .ci { margin: 0; color: var(--muted); font-size: 0.9rem; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { background: var(--soft); }
.scroll { overflow-x: auto; }
figure { margin: 0.5rem 0; } figcaption { color: var(--muted); font-size: 0.9rem; }
svg.chart { width: 100%; height: auto; max-width: 720px; display: block; }
svg.square { max-width: 520px; }
svg text { font: 12px system-ui, sans-serif; fill: var(--ink); }
svg .tick, svg .legend { fill: var(--muted); }
svg .grid { stroke: var(--line); stroke-dasharray: 2 3; }
svg .zero { stroke: var(--ink); }
svg .whisker { stroke: var(--ink); stroke-width: 2; }
svg .dot { fill: var(--accent); stroke: var(--accent); stroke-width: 2; }
svg .dot.hollow { fill: var(--bg); }
svg .dot.muted { fill: var(--muted); stroke: var(--muted); }
svg .bar.gain { fill: var(--good); } svg .bar.drop { fill: var(--bad); }
svg .bar.flat { fill: var(--muted); } svg .bar.set { fill: var(--accent); }
svg .bar.traffic { stroke: var(--accent); } svg .hatch-bg { fill: var(--bg); }
svg .hatch-line { stroke: var(--accent); stroke-width: 2; }
svg .plot { fill: var(--soft); stroke: var(--line); }
svg .curve { fill: none; stroke: var(--accent); stroke-width: 2; }
svg .curve.dashed { stroke: var(--muted); stroke-dasharray: 6 4; }
table.gate tr.fail th, table.gate tr.fail td { color: var(--bad); font-weight: 600; }
.card.headline { border-color: var(--accent); }
.flip.lost { color: var(--bad); font-weight: 600; } .flip.gained { color: var(--good); font-weight: 600; }
td.text { min-width: 10rem; max-width: 20rem; overflow-wrap: break-word; }
ul.why, ul.reasons { margin: 0; padding-left: 1.1rem; } ul.why { min-width: 16rem; }
ul.why li { overflow-wrap: break-word; } #failing td:first-child { white-space: nowrap; }
.filter { display: block; margin: 0.5rem 0; } .filter input { font: inherit; padding: 4px 8px; width: 18rem;
  max-width: 100%; }
footer { border-top: 1px solid var(--line); color: var(--muted); font-size: 0.85rem; }
footer dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
footer dd { margin: 0; overflow-wrap: anywhere; }
a { color: var(--accent); }
@media (max-width: 600px) { body { font-size: 14px; } .big { font-size: 1.6rem; } }
@media print { .filter { display: none; } body { font-size: 11pt; }
  section, figure, tr { break-inside: avoid; } a { color: inherit; text-decoration: none; }
  .card { background: none; } }
"""

SCRIPT = """
(function () {
  var input = document.getElementById('filter');
  if (!input) { return; }
  var rows = document.querySelectorAll('#failing tbody tr');
  input.addEventListener('input', function () {
    var needle = input.value.toLowerCase();
    rows.forEach(function (row) {
      row.hidden = needle !== '' && row.textContent.toLowerCase().indexOf(needle) === -1;
    });
  });
})();
"""
