"""The stylesheet of the HTML report, inline (the page may load nothing) and with local fonts only.

Differences take the hues of the bar charts (plots/compare.py: BETTER #2a9d8f, WORSE #d1495b), darkened
so that text in them stays legible on white (contrast above 4.5:1); significance is weight and a dagger,
never a colour, so a colour always means a direction.
"""

CSS = """\
:root { color-scheme: light; --ink: #1d2430; --muted: #5b6678; --rule: #d5dbe3; --band: #f4f6f9;
        --alert: #b3261e; --accent: #2a6f97; --up: #1b7a6e; --down: #b8283f; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: var(--ink);
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 1.45rem; margin: 0 0 4px; }
h2 { font-size: 1.15rem; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--rule); }
h3 { font-size: 1rem; margin: 20px 0 6px; }
.lede { color: var(--muted); margin: 0; }
section { overflow-x: auto; }
table { border-collapse: collapse; margin: 6px 0 14px; font-size: 0.92rem; }
caption { text-align: left; color: var(--muted); font-size: 0.85rem; padding: 0 0 4px; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--rule); vertical-align: top; }
th { background: var(--band); font-weight: 600; overflow-wrap: break-word; }
.t { text-align: left; max-width: 28em; }
.n { text-align: right; }
tbody tr:nth-child(even) td { background: #fafbfc; }
.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.ci { color: var(--muted); font-variant-numeric: tabular-nums; white-space: nowrap; font-size: 0.88em; }
.delta { font-variant-numeric: tabular-nums; white-space: nowrap; font-size: 0.88em; }
.numbers .delta { font-size: inherit; }
.up { color: var(--up); }
.down { color: var(--down); }
.even { color: var(--muted); }
.sig, .mark { font-weight: 700; }
.name { overflow-wrap: break-word; white-space: pre-wrap; }  /* break-word: short names never split */
.tag { font-size: 0.75em; color: #fff; background: var(--accent); border-radius: 3px; padding: 1px 5px;
       margin-left: 4px; }
figure { margin: 14px 0 22px; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 8px 20px;
           align-items: start; }
.figures figure { margin: 6px 0 12px; min-width: 0; }
.figures .whole { grid-column: 1 / -1; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--rule); }
figcaption { color: var(--muted); font-size: 0.88rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
.notes li { overflow-wrap: anywhere; white-space: pre-wrap; }
.card { border: 1px solid var(--rule); border-radius: 6px; padding: 2px 18px 12px; margin-top: 28px;
        background: var(--band); }
.card h2 { border: 0; margin-top: 14px; }
code { font: 0.88em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.sha code { font-size: 0.8em; }
.warn { border-left: 4px solid var(--alert); background: #fdf1f0; padding: 8px 12px; }
"""
