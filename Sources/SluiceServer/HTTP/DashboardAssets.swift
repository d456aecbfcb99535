/// The dashboard's page, style and script, compiled into the binary: no files to install, no
/// CDN, no web fonts. The script draws everything (the graph, the charts, the tables) as SVG
/// and DOM from `/events`, and keeps the previous snapshot to show rates.
enum DashboardAssets {
    struct Asset {
        var bytes: [UInt8]
        var contentType: String
    }

    static func asset(at path: String) -> Asset? {
        switch path {
        case "/", "/index.html": Asset(bytes: Array(page.utf8), contentType: "text/html; charset=utf-8")
        case "/dashboard.css": Asset(bytes: Array(style.utf8), contentType: "text/css; charset=utf-8")
        case "/dashboard.js": Asset(bytes: Array(script.utf8), contentType: "text/javascript; charset=utf-8")
        case "/favicon.svg": Asset(bytes: Array(icon.utf8), contentType: "image/svg+xml")
        default: nil
        }
    }

    static let icon = #"""
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0f1720"/><path d="M5 21c4 0 5-8 11-8s7 8 11 8" fill="none" stroke="#38bdf8" stroke-width="3" stroke-linecap="round"/><path d="M5 26c4 0 5-5 11-5s7 5 11 5" fill="none" stroke="#a78bfa" stroke-width="2.4" stroke-linecap="round"/></svg>
    """#

    static let page = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Sluice</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml">
    <link rel="stylesheet" href="/dashboard.css">
    </head>
    <body>
    <header>
      <div class="brand"><img src="/favicon.svg" alt="" width="26" height="26"><span>Sluice</span></div>
      <div class="headline" id="headline">
        <div class="stat"><span class="label">events/s in</span><span class="value" id="rate-in">–</span></div>
        <div class="stat"><span class="label">views</span><span class="value" id="count-views">–</span></div>
        <div class="stat"><span class="label">rows committed to sinks</span><span class="value" id="sink-rows">–</span></div>
        <div class="stat"><span class="label">last checkpoint</span><span class="value" id="last-checkpoint">–</span></div>
        <div class="stat"><span class="label">state in memory</span><span class="value" id="state-memory">–</span></div>
      </div>
      <div class="connection" id="connection" data-state="connecting">connecting…</div>
    </header>
    <main>
      <section class="panel wide" id="pipeline">
        <h2>Pipeline</h2>
        <div id="graph"></div>
      </section>
      <section class="panel wide">
        <h2>Materialized views</h2>
        <div id="views" class="views"></div>
      </section>
      <section class="panel" id="sources-panel">
        <h2>Sources</h2>
        <div id="sources"></div>
      </section>
      <section class="panel" id="sinks-panel">
        <h2>Sinks</h2>
        <div id="sinks"></div>
      </section>
      <section class="panel" id="checkpoints-panel">
        <h2>Checkpoints</h2>
        <div id="checkpoints"></div>
      </section>
      <section class="panel wide" id="sql-panel">
        <h2>SQL <span class="hint">read-only: SELECT, SHOW, EXPLAIN, DESCRIBE · Ctrl+Enter runs</span></h2>
        <div class="sql">
          <textarea id="sql-input" spellcheck="false" rows="3">SELECT * FROM sluice_sources</textarea>
          <button id="sql-run" type="button">Run</button>
        </div>
        <div id="sql-result"></div>
      </section>
    </main>
    <script src="/dashboard.js"></script>
    </body>
    </html>
    """#

    static let style = #"""
    :root {
      --bg: #0b1016; --panel: #121a23; --panel2: #17212c; --line: #243244; --text: #dce6f0; --dim: #8a9bb0;
      --accent: #38bdf8; --accent2: #a78bfa; --good: #34d399; --warn: #fbbf24; --bad: #f87171;
      --source: #38bdf8; --table: #22d3ee; --view: #a78bfa; --sink: #34d399;
    }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); color: var(--text);
      font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
    header { position: sticky; top: 0; z-index: 2; display: flex; align-items: center; gap: 28px; padding: 12px 22px;
      background: rgba(11,16,22,.92); backdrop-filter: blur(6px); border-bottom: 1px solid var(--line); }
    .brand { display: flex; align-items: center; gap: 10px; font-weight: 700; font-size: 19px; letter-spacing: .3px; }
    .headline { display: flex; gap: 28px; flex: 1; flex-wrap: wrap; }
    .stat { display: flex; flex-direction: column; }
    .stat .label { color: var(--dim); font-size: 11px; text-transform: uppercase; letter-spacing: .6px; }
    .stat .value { font-size: 18px; font-weight: 600; font-variant-numeric: tabular-nums; }
    .connection { font-size: 12px; padding: 4px 10px; border-radius: 999px; border: 1px solid var(--line); color: var(--dim); }
    .connection[data-state="live"] { color: var(--good); border-color: #1f5f4a; }
    .connection[data-state="live"]::before { content: "●"; margin-right: 6px; animation: pulse 1.6s infinite; }
    .connection[data-state="lost"] { color: var(--bad); border-color: #6b2b2b; }
    @keyframes pulse { 50% { opacity: .35; } }
    main { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 16px; padding: 16px 22px 40px; }
    .panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; min-width: 0; }
    .panel.wide { grid-column: 1 / -1; }
    h2 { margin: 0 0 10px; font-size: 13px; text-transform: uppercase; letter-spacing: .8px; color: var(--dim); font-weight: 600; }
    h2 .hint { text-transform: none; letter-spacing: 0; font-weight: 400; margin-left: 10px; opacity: .8; }
    h3 { margin: 0; font-size: 15px; font-weight: 600; }
    #graph svg { width: 100%; display: block; }
    .node rect { rx: 8; fill: var(--panel2); stroke-width: 1.5; }
    .node.source rect { stroke: var(--source); } .node.table rect { stroke: var(--table); }
    .node.materialized\ view rect, .node.view rect { stroke: var(--view); } .node.sink rect { stroke: var(--sink); }
    .node .name { fill: var(--text); font-weight: 600; font-size: 13px; }
    .node .kind { fill: var(--dim); font-size: 10.5px; text-transform: uppercase; letter-spacing: .6px; }
    .node .metric { fill: var(--accent); font-size: 12px; font-variant-numeric: tabular-nums; }
    .node.failing rect { stroke: var(--bad); }
    .edge path { fill: none; stroke: #3b4d63; stroke-width: 2; }
    .edge.flowing path { stroke: var(--accent); stroke-dasharray: 6 6; animation: flow 0.9s linear infinite; opacity: .85; }
    .edge text { fill: var(--dim); font-size: 11px; font-variant-numeric: tabular-nums; }
    @keyframes flow { to { stroke-dashoffset: -12; } }
    .views { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 14px; }
    .view { background: var(--panel2); border: 1px solid var(--line); border-radius: 9px; padding: 12px; min-width: 0; }
    .view header { position: static; padding: 0 0 8px; border: 0; background: none; display: flex; justify-content: space-between; gap: 8px; }
    .view .meta { color: var(--dim); font-size: 12px; font-variant-numeric: tabular-nums; }
    .chart { width: 100%; height: 190px; display: block; }
    .chart text { fill: var(--dim); font-size: 10.5px; }
    .chart .bar { fill: var(--accent2); } .chart .bar:hover { fill: var(--accent); }
    .chart .grid { stroke: #223042; }
    .chart .line { fill: none; stroke-width: 2; }
    .legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 11.5px; color: var(--dim); margin: 4px 0 6px; }
    .legend i { display: inline-block; width: 10px; height: 3px; border-radius: 2px; margin-right: 5px; vertical-align: middle; }
    .scroll { max-height: 230px; overflow: auto; border-top: 1px solid var(--line); margin-top: 6px; }
    table { border-collapse: collapse; width: 100%; font-size: 12.5px; font-variant-numeric: tabular-nums; }
    th, td { padding: 4px 8px; text-align: left; border-bottom: 1px solid #1c2836; white-space: nowrap; }
    th { color: var(--dim); font-weight: 600; position: sticky; top: 0; background: var(--panel2); }
    td.num { text-align: right; } td.changed { animation: flash 1.2s ease-out; }
    @keyframes flash { from { background: rgba(56,189,248,.28); } to { background: transparent; } }
    .card { background: var(--panel2); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; margin-bottom: 10px; }
    .card .row { display: flex; justify-content: space-between; gap: 10px; font-variant-numeric: tabular-nums; }
    .card .row span:first-child { color: var(--dim); }
    .badge { font-size: 11px; padding: 1px 8px; border-radius: 999px; background: #1d2a38; color: var(--dim); }
    .badge.good { color: var(--good); } .badge.warn { color: var(--warn); } .badge.bad { color: var(--bad); }
    .errors { margin-top: 6px; font-size: 12px; }
    .errors div { color: var(--bad); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .errors code { color: var(--dim); }
    .spark { width: 100%; height: 70px; display: block; }
    .spark path { fill: none; stroke: var(--accent); stroke-width: 1.8; }
    .spark .area { fill: rgba(56,189,248,.12); stroke: none; }
    .sql { display: flex; gap: 10px; align-items: stretch; }
    textarea { flex: 1; background: #0d141b; color: var(--text); border: 1px solid var(--line); border-radius: 8px; padding: 10px;
      font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; resize: vertical; }
    button { background: var(--accent); color: #06202c; border: 0; border-radius: 8px; padding: 0 22px; font-weight: 700; cursor: pointer; }
    button:hover { filter: brightness(1.1); }
    #sql-result { margin-top: 10px; }
    #sql-result .error { color: var(--bad); font-family: ui-monospace, monospace; }
    #sql-result .tag { color: var(--dim); font-size: 12px; margin-top: 6px; }
    .empty { color: var(--dim); font-style: italic; }
    @media (max-width: 1100px) { main { grid-template-columns: 1fr; } }
    """#

    static let script = #"""
    "use strict";
    const $ = (id) => document.getElementById(id);
    const NS = "http://www.w3.org/2000/svg";
    const palette = ["#38bdf8", "#a78bfa", "#34d399", "#fbbf24", "#f472b6", "#f87171", "#22d3ee", "#c084fc", "#4ade80", "#fb923c"];
    let previous = null;
    let current = null;

    function svg(tag, attrs, parent) {
      const el = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
      if (parent) parent.appendChild(el);
      return el;
    }
    function el(tag, attrs, text) {
      const node = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
      if (text !== undefined) node.textContent = text;
      return node;
    }
    function fmt(n) {
      if (n === null || n === undefined || Number.isNaN(n)) return "–";
      const a = Math.abs(n);
      if (a >= 1e9) return (n / 1e9).toFixed(2) + "G";
      if (a >= 1e6) return (n / 1e6).toFixed(2) + "M";
      if (a >= 1e4) return (n / 1e3).toFixed(1) + "k";
      if (Number.isInteger(n)) return String(n);
      return n.toFixed(a < 10 ? 2 : 1);
    }
    // Axis labels: three significant digits at most.
    function tick(n) {
      const a = Math.abs(n);
      if (a >= 1e6) return (n / 1e6).toPrecision(3) + "M";
      if (a >= 1e3) return (n / 1e3).toPrecision(3) + "k";
      return a >= 100 || Number.isInteger(n) ? String(Math.round(n)) : n.toPrecision(3);
    }
    function bytes(n) {
      if (!n) return "0 B";
      const units = ["B", "KiB", "MiB", "GiB", "TiB"];
      let i = 0;
      while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
      return n.toFixed(i ? 1 : 0) + " " + units[i];
    }
    function ago(ms) {
      if (!ms) return "never";
      const s = Math.max(0, (Date.now() - ms) / 1000);
      if (s < 60) return s.toFixed(0) + " s ago";
      if (s < 3600) return (s / 60).toFixed(0) + " min ago";
      return (s / 3600).toFixed(1) + " h ago";
    }
    function byId(snapshot) {
      const map = new Map();
      for (const node of snapshot ? snapshot.nodes : []) map.set(node.id, node);
      return map;
    }
    // Per second, from the previous snapshot; null before there is one.
    function rate(node, get) {
      if (!previous) return null;
      const before = byId(previous).get(node.id);
      if (!before) return null;
      const a = get(before), b = get(node);
      const dt = (current.time_ms - previous.time_ms) / 1000;
      if (a === undefined || b === undefined || dt <= 0) return null;
      return Math.max(0, (b - a) / dt);
    }
    const inflow = (n) => n.source ? n.source.rows_read : n.sink ? n.sink.rows_in : n.job ? n.job.rows_in : undefined;

    function render(snapshot) {
      previous = current;
      current = snapshot;
      renderHeadline();
      renderGraph();
      renderViews();
      renderSources();
      renderSinks();
      renderCheckpoints();
    }

    function renderHeadline() {
      const nodes = current.nodes;
      let total = null;
      for (const n of nodes.filter((n) => n.source)) {
        const r = rate(n, (x) => x.source && x.source.rows_read);
        if (r !== null) total = (total || 0) + r;
      }
      $("rate-in").textContent = total === null ? "–" : fmt(total);
      $("count-views").textContent = nodes.filter((n) => n.kind === "materialized view").length;
      $("sink-rows").textContent = fmt(nodes.filter((n) => n.sink).reduce((s, n) => s + n.sink.rows, 0));
      const last = current.checkpoints[current.checkpoints.length - 1];
      $("last-checkpoint").textContent = last ? `#${last.epoch} · ${fmt(last.duration_ms)} ms` : "–";
      $("state-memory").textContent = bytes(current.memory.state_resident_bytes);
    }

    // Columns by depth: sources and tables first, then each view one column right of what it reads.
    function layout(nodes, edges) {
      const depth = new Map();
      const ups = new Map();
      for (const e of edges) { if (!ups.has(e.to)) ups.set(e.to, []); ups.get(e.to).push(e.from); }
      const visit = (id, seen) => {
        if (depth.has(id)) return depth.get(id);
        if (seen.has(id)) return 0;
        seen.add(id);
        const d = Math.max(-1, ...(ups.get(id) || []).map((u) => visit(u, seen))) + 1;
        depth.set(id, d);
        return d;
      };
      for (const n of nodes) visit(n.id, new Set());
      const maxDepth = Math.max(0, ...nodes.filter((n) => n.kind !== "sink").map((n) => depth.get(n.id)));
      for (const n of nodes) if (n.kind === "sink") depth.set(n.id, Math.max(depth.get(n.id), maxDepth + 1));
      const columns = [];
      for (const n of nodes) { const d = depth.get(n.id); (columns[d] = columns[d] || []).push(n); }
      return columns.filter(Boolean);
    }

    function nodeMetric(n) {
      if (n.source) { const r = rate(n, (x) => x.source && x.source.rows_read); return (r === null ? fmt(n.source.rows_read) + " rows" : fmt(r) + " rows/s"); }
      if (n.job && n.job.backfilled_rows < n.job.backfill_rows) return `backfill ${(100 * n.job.backfilled_rows / n.job.backfill_rows).toFixed(1)}%`;
      if (n.sink) return `${n.sink.commits} commits · ${fmt(n.sink.rows)} rows`;
      if (n.row_count !== undefined) return fmt(n.row_count) + " rows";
      return "";
    }

    function renderGraph() {
      const host = $("graph");
      const nodes = current.nodes, edges = current.edges;
      if (!nodes.length) { host.replaceChildren(el("div", { class: "empty" }, "No sources, tables, views or sinks yet. Create some with psql.")); return; }
      const columns = layout(nodes, edges);
      const W = 220, H = 58, GX = 90, GY = 18;
      const height = Math.max(...columns.map((c) => c.length)) * (H + GY) + GY;
      const width = columns.length * (W + GX) - GX + 40;
      const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, "data-nodes": nodes.length, "data-edges": edges.length });
      root.style.maxHeight = Math.max(160, height) + "px";
      const pos = new Map();
      columns.forEach((column, ci) => {
        const offset = (height - column.length * (H + GY) + GY) / 2;
        column.forEach((n, ri) => pos.set(n.id, { x: 20 + ci * (W + GX), y: offset + ri * (H + GY) }));
      });
      const byNode = byId(current);
      for (const e of edges) {
        const a = pos.get(e.from), b = pos.get(e.to);
        if (!a || !b) continue;
        const target = byNode.get(e.to);
        const r = target ? rate(target, inflow) : null;
        const g = svg("g", { class: "edge" + (r ? " flowing" : ""), "data-from": e.from, "data-to": e.to }, root);
        const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
        svg("path", { d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}` }, g);
        // The rate sits by the edge's end, where fanned-out edges are apart.
        if (r !== null) { const t = svg("text", { x: x2 - 8, y: y2 - 6, "text-anchor": "end", class: "rate" }, g); t.textContent = fmt(r) + "/s"; }
      }
      for (const n of nodes) {
        const p = pos.get(n.id);
        const failing = (n.sink && n.sink.last_error) || (n.job && n.job.last_error);
        const g = svg("g", { class: `node ${n.kind}${failing ? " failing" : ""}`, transform: `translate(${p.x},${p.y})`, "data-name": n.name, "data-kind": n.kind }, root);
        svg("rect", { width: W, height: H }, g);
        const kind = svg("text", { x: 12, y: 17, class: "kind" }, g);
        kind.textContent = n.kind + (n.connector ? " · " + n.connector : "");
        const name = svg("text", { x: 12, y: 35, class: "name" }, g);
        name.textContent = n.name.length > 28 ? n.name.slice(0, 27) + "…" : n.name;
        const metric = svg("text", { x: 12, y: 51, class: "metric" }, g);
        metric.textContent = nodeMetric(n);
        const title = svg("title", {}, g);
        title.textContent = n.name;
      }
      host.replaceChildren(root);
    }

    function cellText(v) {
      if (v === null || v === undefined) return "NULL";
      if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(3).replace(/\.?0+$/, "");
      return String(v);
    }
    function table(columns, rows, oldRows) {
      const t = el("table");
      const head = el("tr");
      for (const c of columns) head.appendChild(el("th", { title: c.type }, c.name));
      t.appendChild(el("thead")).appendChild(head);
      const body = t.appendChild(el("tbody"));
      rows.forEach((row, ri) => {
        const tr = body.appendChild(el("tr"));
        row.forEach((v, ci) => {
          const td = el("td", { class: typeof v === "number" ? "num" : "" }, cellText(v));
          if (oldRows && oldRows[ri] && oldRows[ri][ci] !== v) td.classList.add("changed");
          tr.appendChild(td);
        });
      });
      return t;
    }
    const label = (row, chart) => chart.labels.map((i) => cellText(row[i])).join(" · ") || "(all)";
    const time = (v) => new Date(String(v).replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")).getTime();

    function barChart(view) {
      const chart = view.chart;
      const rows = view.rows.slice(0, 12);
      const root = svg("svg", { class: "chart bars", viewBox: "0 0 420 190", preserveAspectRatio: "none", "data-kind": "bars" });
      if (!rows.length) return root;
      const max = Math.max(...rows.map((r) => Number(r[chart.value]) || 0), 1);
      const left = 118, bh = 170 / rows.length;
      rows.forEach((r, i) => {
        const v = Number(r[chart.value]) || 0;
        const w = Math.max(1, (420 - left - 48) * v / max);
        const y = 8 + i * bh;
        const name = svg("text", { x: left - 6, y: y + bh * 0.62, "text-anchor": "end" }, root);
        const text = label(r, chart);
        name.textContent = text.length > 18 ? text.slice(0, 17) + "…" : text;
        const bar = svg("rect", { class: "bar", x: left, y: y + 2, width: w, height: Math.max(2, bh - 5), rx: 3, "data-label": text, "data-value": v }, root);
        svg("title", {}, bar).textContent = `${text}: ${cellText(v)}`;
        const value = svg("text", { x: left + w + 5, y: y + bh * 0.62 }, root);
        value.textContent = fmt(v);
      });
      return root;
    }

    function lineChart(view, legend) {
      const chart = view.chart;
      const root = svg("svg", { class: "chart lines", viewBox: "0 0 420 190", preserveAspectRatio: "none", "data-kind": "lines" });
      const series = new Map();
      for (const r of view.rows) {
        const t = time(r[chart.time]);
        if (Number.isNaN(t)) continue;
        const key = label(r, chart);
        if (!series.has(key)) series.set(key, []);
        series.get(key).push([t, Number(r[chart.value]) || 0]);
      }
      // The groups with the most recent activity, at most eight lines.
      const keys = [...series.keys()].sort((a, b) => series.get(b).length - series.get(a).length).slice(0, 8);
      const points = keys.flatMap((k) => series.get(k));
      if (!points.length) return root;
      const t0 = Math.min(...points.map((p) => p[0])), t1 = Math.max(...points.map((p) => p[0]));
      const v1 = Math.max(...points.map((p) => p[1]), 1);
      const X = (t) => 46 + (t1 === t0 ? 180 : (t - t0) / (t1 - t0) * 364), Y = (v) => 176 - v / v1 * 164;
      for (let i = 0; i <= 4; i++) {
        const y = 12 + i * 41;
        svg("line", { x1: 46, x2: 414, y1: y, y2: y, class: "grid" }, root);
        svg("text", { x: 40, y: y + 4, "text-anchor": "end" }, root).textContent = tick(v1 * (1 - i / 4));
      }
      svg("text", { x: 46, y: 189 }, root).textContent = new Date(t0).toLocaleTimeString();
      svg("text", { x: 414, y: 189, "text-anchor": "end" }, root).textContent = new Date(t1).toLocaleTimeString();
      keys.forEach((k, i) => {
        const pts = series.get(k).sort((a, b) => a[0] - b[0]);
        const d = pts.map((p, j) => `${j ? "L" : "M"}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(" ");
        svg("path", { d, class: "line", stroke: palette[i % palette.length], "data-series": k, "data-points": pts.length }, root);
        const item = legend.appendChild(el("span"));
        item.appendChild(el("i")).style.background = palette[i % palette.length];
        item.appendChild(document.createTextNode(k));
      });
      return root;
    }

    const viewCards = new Map();
    function renderViews() {
      const host = $("views");
      const oldBy = new Map(previous ? previous.views.map((v) => [v.name, v]) : []);
      if (!current.views.length) { host.replaceChildren(el("div", { class: "empty" }, "No materialized views yet.")); viewCards.clear(); return; }
      if (host.querySelector(".empty")) host.replaceChildren();
      const names = new Set(current.views.map((v) => v.name));
      for (const [name, card] of viewCards) if (!names.has(name)) { card.remove(); viewCards.delete(name); }
      for (const view of current.views) {
        let card = viewCards.get(view.name);
        if (!card) {
          card = el("article", { class: "view", "data-name": view.name });
          viewCards.set(view.name, card);
          host.appendChild(card);
        }
        const node = byId(current).get(view.id) || {};
        const head = el("header");
        head.appendChild(el("h3", {}, view.name));
        head.appendChild(el("span", { class: "meta", "data-row-count": node.row_count ?? "" }, `${fmt(node.row_count)} rows · ${view.chart.kind}`));
        const parts = [head];
        if (view.error) {
          parts.push(el("div", { class: "errors" }, view.error));
        } else {
          const legend = el("div", { class: "legend" });
          if (view.chart.kind === "bars") parts.push(barChart(view));
          if (view.chart.kind === "lines") { parts.push(lineChart(view, legend)); parts.push(legend); }
          const old = oldBy.get(view.name);
          const scroll = el("div", { class: "scroll" });
          scroll.appendChild(table(view.columns, view.rows.slice(0, 50), old && old.rows));
          parts.push(scroll);
        }
        card.replaceChildren(...parts);
      }
    }

    function row(name, value, attrs) {
      const r = el("div", { class: "row" });
      r.appendChild(el("span", {}, name));
      r.appendChild(el("span", attrs || {}, value));
      return r;
    }
    function renderSources() {
      const host = $("sources");
      const sources = current.nodes.filter((n) => n.source);
      if (!sources.length) { host.replaceChildren(el("div", { class: "empty" }, "No sources.")); return; }
      host.replaceChildren(...sources.map((n) => {
        const s = n.source, card = el("div", { class: "card source", "data-name": n.name });
        const head = el("div", { class: "row" });
        head.appendChild(el("h3", {}, n.name));
        head.appendChild(el("span", { class: "badge " + (s.status === "running" ? "good" : "warn") }, s.status));
        card.appendChild(head);
        const r = rate(n, (x) => x.source && x.source.rows_read);
        const b = rate(n, (x) => x.source && x.source.bytes_read);
        card.appendChild(row("rows/s · bytes/s", (r === null ? "–" : fmt(r)) + " · " + (b === null ? "–" : bytes(b)), { "data-metric": "rate" }));
        card.appendChild(row("lag (messages)", s.lag === null || s.lag === undefined ? "–" : fmt(s.lag), { "data-metric": "lag" }));
        card.appendChild(row("rows read", fmt(s.rows_read), { "data-metric": "rows_read", "data-value": s.rows_read }));
        card.appendChild(row("bad rows", fmt(s.rows_rejected), { "data-metric": "rows_rejected" }));
        card.appendChild(row("late rows", fmt(s.rows_late), { "data-metric": "rows_late" }));
        if (s.latest_errors.length) {
          const errors = card.appendChild(el("div", { class: "errors" }));
          for (const e of s.latest_errors) {
            const line = errors.appendChild(el("div", { title: e.payload }, e.error + " "));
            line.appendChild(el("code", {}, e.payload));
          }
        }
        return card;
      }));
    }
    function renderSinks() {
      const host = $("sinks");
      const sinks = current.nodes.filter((n) => n.sink);
      if (!sinks.length) { host.replaceChildren(el("div", { class: "empty" }, "No sinks.")); return; }
      host.replaceChildren(...sinks.map((n) => {
        const s = n.sink, card = el("div", { class: "card sink", "data-name": n.name });
        const head = el("div", { class: "row" });
        head.appendChild(el("h3", {}, n.name));
        head.appendChild(el("span", { class: "badge " + (s.last_error ? "bad" : s.state === "committed" ? "good" : "warn") }, s.state));
        card.appendChild(head);
        card.appendChild(row(n.connector || "sink", s.target || ""));
        card.appendChild(row("last commit", s.last_commit_at_ms ? `epoch ${s.last_commit_epoch} · ${ago(s.last_commit_at_ms)}` : "none yet"));
        card.appendChild(row("commits · files · rows", `${fmt(s.commits)} · ${fmt(s.files)} · ${fmt(s.rows)}`, { "data-metric": "rows", "data-value": s.rows }));
        card.appendChild(row("pending epochs", String(s.pending_epochs)));
        if (s.last_error) card.appendChild(el("div", { class: "errors" })).appendChild(el("div", { title: s.last_error }, s.last_error));
        return card;
      }));
    }
    function renderCheckpoints() {
      const host = $("checkpoints");
      const cps = current.checkpoints;
      if (!cps.length) { host.replaceChildren(el("div", { class: "empty" }, "No checkpoint yet.")); return; }
      const ok = cps.filter((c) => !c.error);
      const durations = ok.map((c) => c.duration_ms);
      const max = Math.max(...durations, 1);
      const spark = svg("svg", { class: "spark", viewBox: "0 0 300 70", preserveAspectRatio: "none" });
      const pts = durations.map((d, i) => [durations.length === 1 ? 150 : i / (durations.length - 1) * 300, 66 - d / max * 60]);
      if (pts.length) {
        const line = pts.map((p, i) => `${i ? "L" : "M"}${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" ");
        svg("path", { d: `${line} L300,70 L0,70 Z`, class: "area" }, spark);
        svg("path", { d: line }, spark);
      }
      const last = cps[cps.length - 1];
      const card = el("div", { class: "card" });
      const barriers = current.barriers || [];
      if (barriers.length) {
        const ms = barriers.map((b) => b.ms).sort((a, b) => a - b);
        const p = (q) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))];
        card.appendChild(row("barrier latency p50 · p99 (last " + ms.length + ")", `${fmt(p(0.5))} ms · ${fmt(p(0.99))} ms`, { "data-metric": "barrier_latency" }));
      }
      card.appendChild(row("last", `#${last.epoch} · ${ago(last.started_at_ms)}`));
      card.appendChild(row("duration (last · max of " + ok.length + ")", `${fmt(last.duration_ms)} ms · ${fmt(max)} ms`));
      card.appendChild(row("size", bytes(last.bytes)));
      card.appendChild(row("failed (recent)", String(cps.length - ok.length)));
      const m = current.memory;
      card.appendChild(row("state in memory · spilled", `${bytes(m.state_resident_bytes)} · ${bytes(m.state_spilled_bytes)}`));
      card.appendChild(row("process · limit", `${bytes(m.process_rss_bytes)} · ${bytes(m.limit_bytes)}`));
      host.replaceChildren(spark, card);
    }

    async function runSQL() {
      const out = $("sql-result");
      out.replaceChildren(el("div", { class: "tag" }, "running…"));
      try {
        const response = await fetch("/api/query", { method: "POST", body: $("sql-input").value });
        const result = await response.json();
        if (result.error) { out.replaceChildren(el("div", { class: "error" }, `${result.error.sqlstate}: ${result.error.message}`)); return; }
        const scroll = el("div", { class: "scroll" });
        scroll.style.maxHeight = "420px";
        scroll.appendChild(table(result.columns, result.rows));
        out.replaceChildren(scroll, el("div", { class: "tag" }, result.tag + (result.truncated ? " (first rows only)" : "")));
      } catch (error) {
        out.replaceChildren(el("div", { class: "error" }, String(error)));
      }
    }
    $("sql-run").addEventListener("click", runSQL);
    $("sql-input").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); runSQL(); } });

    function connect() {
      const source = new EventSource("/events");
      source.onopen = () => { $("connection").dataset.state = "live"; $("connection").textContent = "live"; };
      source.onmessage = (event) => { try { render(JSON.parse(event.data)); } catch (error) { console.error(error); } };
      source.onerror = () => { $("connection").dataset.state = "lost"; $("connection").textContent = "reconnecting…"; };
    }
    connect();
    """#
}
