// The status page's stylesheet, served from the exporter's own path so a `default-src 'self'` policy allows it.

/** Readable on a 360 px phone and a desktop alike; light and dark follow the device; a long unbroken id wraps inside its card. */
export const STATUS_CSS = `:root {
  color-scheme: light dark;
  --bg: #f4f5f7; --card: #ffffff; --text: #1d2330; --muted: #5d6678; --line: #e1e4ea;
  --ok: #1a7f37; --ok-bg: #dcf5e3; --warn: #9a6700; --warn-bg: #fff1c2; --crit: #b42318; --crit-bg: #fde2df;
  --none: #5d6678; --none-bg: #eceef2; --link: #0a58ca;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #11151c; --card: #1a2029; --text: #e6e9ef; --muted: #9aa4b5; --line: #2b3340;
    --ok: #5fd38a; --ok-bg: #12361f; --warn: #f2c14e; --warn-bg: #3d3010; --crit: #ff8a7a; --crit-bg: #481a16;
    --none: #9aa4b5; --none-bg: #262d38; --link: #7fb0ff;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header, main, footer { max-width: 960px; margin: 0 auto; padding: 0 12px; }
header { padding-top: 14px; }
h1 { font-size: 1.35rem; margin: 0; }
h2 { font-size: 1.15rem; margin: 0 0 4px; display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
h2 bdi { min-width: 0; }
.meta, .age, .quiet, small { color: var(--muted); font-size: 0.85rem; }
.meta { margin: 2px 0 12px; }
.age { margin: 0 0 10px; }
.summary { margin: 0 0 12px; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; font-weight: 600; }
.account, .notice { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px; margin: 0 0 14px; }
.notice { border-left: 4px solid var(--warn); }
table { width: 100%; border-collapse: collapse; margin: 0 0 10px; font-variant-numeric: tabular-nums; }
th, td { text-align: left; vertical-align: top; padding: 7px 6px; border-top: 1px solid var(--line); }
/* Ids (a venue's market id, a direction, a collateral id, an account name) are isolated: their bidirectional
   controls reorder nothing outside them. A long one breaks anywhere, so it wraps inside its card, where words do not. */
bdi { unicode-bidi: isolate; overflow-wrap: anywhere; }
thead th { border-top: 0; color: var(--muted); font-size: 0.8rem; font-weight: 600; text-transform: uppercase; letter-spacing: 0.03em; }
tbody th { font-weight: 600; }
td strong { font-size: 1.1rem; }
td small { display: block; }
td.warning { background: var(--warn-bg); }
td.critical { background: var(--crit-bg); }
.badge { display: inline-block; white-space: nowrap; padding: 1px 8px; border-radius: 999px; font-size: 0.75rem; font-weight: 700; text-transform: uppercase; letter-spacing: 0.03em; vertical-align: 2px; }
.badge.ok, .badge.up { color: var(--ok); background: var(--ok-bg); }
.badge.warning { color: var(--warn); background: var(--warn-bg); border: 1px solid var(--warn); }
.badge.critical, .badge.down { color: var(--crit); background: var(--crit-bg); border: 1px solid var(--crit); }
.badge.none { color: var(--none); background: var(--none-bg); }
a.badge { text-decoration: none; }
a.badge::after { content: " \\2197"; }
.limit { color: var(--muted); font-size: 0.85rem; }
tr.money td { border-top: 0; padding-top: 0; }
tr.money dl { margin: 0; display: flex; flex-wrap: wrap; gap: 2px 18px; }
tr.money dl div { min-width: 0; }
tr.money dt { color: var(--muted); font-size: 0.75rem; }
tr.money dd { margin: 0; overflow-wrap: anywhere; }
code { font-size: 0.85rem; }
.endpoints tbody th { font: 500 0.85rem ui-monospace, "DejaVu Sans Mono", monospace; white-space: nowrap; word-break: normal; }
td.none { color: var(--muted); }
time { display: inline-block; }
.endpoints time { display: block; font-size: 0.85rem; color: var(--muted); }
a { color: var(--link); }
.links { margin: 0; display: flex; gap: 16px; flex-wrap: wrap; }
footer ul { list-style: none; padding: 0; margin: 0 0 24px; display: flex; flex-wrap: wrap; gap: 8px 16px; }
@media (max-width: 480px) {
  body { font-size: 15px; }
  th, td { padding: 6px 4px; }
  .account { padding: 10px 8px; }
}
`;
