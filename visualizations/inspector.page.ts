import { INSPECTOR_CLIENT } from "./inspector.client"

// The inspector's page: one HTML document with its style and script inline and the feed's current view as JSON, so
// it paints at once and loads nothing from anywhere but its own server (diagrams and the event stream).

const STYLE = `
  :root { font: 13px/1.4 system-ui, sans-serif; color: #1f2328; background: #f6f8fa; }
  body { margin: 0; display: grid; grid-template-rows: auto 1fr; height: 100vh; }
  header { display: flex; gap: 12px; align-items: center; padding: 8px 14px; background: #24292f; color: #fff; }
  header h1 { font-size: 15px; margin: 0; font-weight: 600; }
  header .workspace { opacity: .75; font-family: ui-monospace, monospace; }
  header select { font: inherit; }
  #live { width: 9px; height: 9px; border-radius: 50%; background: #8c959f; display: inline-block; }
  #live.live { background: #2da44e; } #live.down { background: #cf222e; }
  #status { font-size: 12px; opacity: .8; margin-left: auto; } #status.problem { color: #ffb3b3; opacity: 1; }
  main { display: grid; grid-template-columns: minmax(260px, 28%) 1fr; min-height: 0; }
  nav { overflow: auto; border-right: 1px solid #d0d7de; background: #fff; }
  nav .count { padding: 6px 10px; color: #57606a; font-size: 12px; }
  .instance { display: grid; grid-template-columns: 56px 1fr; gap: 0 8px; width: 100%; text-align: left; border: 0;
    border-bottom: 1px solid #eaeef2; background: none; padding: 6px 10px; font: inherit; cursor: pointer; }
  /* A thousand rows: those off screen are neither laid out nor painted until scrolled to. */
  .instance { content-visibility: auto; contain-intrinsic-size: auto 52px; }
  .instance:hover { background: #f3f4f6; } .instance.selected { background: #ddf4ff; }
  .instance.final { color: #6e7781; }
  .instance .machine { font-weight: 600; } .instance .state { font-family: ui-monospace, monospace; }
  .instance .id, .instance .detail { grid-column: 2; font-size: 11px; color: #57606a; }
  .empty { color: #6e7781; padding: 10px; }
  section { padding: 10px 16px; overflow: auto; min-height: 0; }
  h2 { font-size: 14px; margin: 4px 0; } h3 { font-size: 12px; margin: 14px 0 4px; color: #57606a; text-transform: uppercase; }
  #facts { color: #57606a; }
  #diagram { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; overflow: auto; max-height: 55vh; padding: 6px; }
  #diagram svg { max-width: none; height: auto; }
  #diagram .forge-active > path, #diagram .forge-active > polygon, #diagram .forge-active > ellipse {
    stroke: #bf3989; stroke-width: 3px; fill: #ffeff7; }
  pre { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; max-height: 30vh; overflow: auto; white-space: pre-wrap; }
  table { border-collapse: collapse; font-family: ui-monospace, monospace; font-size: 12px; }
  td { padding: 2px 10px 2px 0; } td.event { color: #8250df; }
  #watchdog ul { list-style: none; padding: 0; margin: 0; font-family: ui-monospace, monospace; font-size: 12px; }
`

/** The page, its script allowed by `nonce`, with `initial` (the feed's current view) inline. */
export function inspectorPage(workspace: string, initial: unknown, nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Forge inspector · ${escapeHtml(workspace)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <span id="live" title="live updates"></span>
  <h1>Forge inspector</h1>
  <span class="workspace">${escapeHtml(workspace)}</span>
  <label>session <select id="filter-session"></select></label>
  <label>machine <select id="filter-machine"></select></label>
  <span id="status"></span>
</header>
<main>
  <nav><div class="count" id="count"></div><div id="instances"></div></nav>
  <section>
    <div id="detail" hidden>
      <h2 id="title"></h2>
      <div id="facts"></div>
      <h3>Diagram</h3>
      <div id="diagram"></div>
      <h3>Transition log</h3>
      <table><tbody id="log"></tbody></table>
      <h3>Document</h3>
      <pre id="document"></pre>
      <h3>Context</h3>
      <pre id="context"></pre>
    </div>
    <div id="watchdog"><h3>Watchdog calls</h3><ul id="watchdog-entries"></ul></div>
  </section>
</main>
<script type="application/json" id="forge-initial">${jsonForScript(initial)}</script>
<script nonce="${nonce}">${INSPECTOR_CLIENT}</script>
</body>
</html>
`
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** JSON that cannot end the script element it sits in (`</script>`, `<!--`). */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
}
