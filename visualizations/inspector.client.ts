// The inspector page's script, run by the browser: it keeps the feed's view (inline first, then the server's event
// stream), lists the lifecycles under the session and machine filters, and shows the one opened: its diagram with the
// active states highlighted, its record, its document and its transition log. Data is only ever set as text, never as
// markup; the one markup it inserts is the server's own diagram of a machine.
export const INSPECTOR_CLIENT = `
(() => {
  "use strict"
  const $ = (id) => document.getElementById(id)
  const view = { instances: new Map(), watchdog: [], database: null, problem: null, liveSnapshots: 0 }
  const params = new URLSearchParams(location.search)
  let selected = params.get("instance")
  let shownMachine = null
  let diagramLoad = null
  const diagrams = new Map()
  let renderQueued = false

  function el(tag, cls, text) {
    const node = document.createElement(tag)
    if (cls) node.className = cls
    if (text !== undefined) node.textContent = text
    return node
  }
  const time = (ms) => new Date(ms).toLocaleTimeString()
  const short = (id) => (id.length > 28 ? id.slice(0, 12) + "…" + id.slice(-12) : id)

  function apply(message) {
    if (message.type === "reset") {
      view.instances = new Map(message.instances.map((i) => [i.key, i]))
      view.watchdog = message.watchdog
      view.database = message.database
      view.problem = message.problem
      view.liveSnapshots = message.liveSnapshots
    } else if (message.type === "live") {
      view.liveSnapshots = message.snapshots
    } else if (message.type === "instances") {
      for (const i of message.instances) view.instances.set(i.key, i)
    } else if (message.type === "removed") {
      for (const key of message.keys) view.instances.delete(key)
    } else if (message.type === "watchdog") {
      view.watchdog = view.watchdog.concat(message.entries).slice(-1000)
    } else if (message.type === "problem") {
      view.problem = message.text
    }
    queueRender()
  }

  function queueRender() {
    if (renderQueued) return
    renderQueued = true
    requestAnimationFrame(() => {
      renderQueued = false
      render()
    })
  }

  // The filters as chosen (from the address at first): a session not seen yet stays chosen until it shows up.
  const chosen = { session: params.get("session") || "", machine: params.get("machine") || "" }
  function filters() {
    return chosen
  }

  function visible() {
    const f = filters()
    return [...view.instances.values()]
      .filter((i) => (f.session === "" || i.session === f.session) && (f.machine === "" || i.machine === f.machine))
      .sort((a, b) => b.updatedAt - a.updatedAt)
  }

  function fillSelect(select, values, label, key) {
    const wanted = ["", ...new Set([...values, chosen[key]].filter((v) => v !== ""))].sort()
    const have = [...select.options].map((o) => o.value)
    if (wanted.length === have.length && wanted.every((v, k) => v === have[k])) return
    select.replaceChildren(...wanted.map((v) => {
      const option = el("option", "", v === "" ? "every " + label : v)
      option.value = v
      return option
    }))
    select.value = chosen[key]
  }

  function render() {
    const sessions = new Set()
    const machines = new Set(["plan", "goal", "crew", "loop", "job", "watchdog"])
    for (const i of view.instances.values()) {
      if (i.session) sessions.add(i.session)
      machines.add(i.machine)
    }
    for (const w of view.watchdog) if (w.session) sessions.add(w.session)
    fillSelect($("filter-session"), [...sessions], "session", "session")
    fillSelect($("filter-machine"), [...machines], "machine", "machine")
    const live = view.liveSnapshots > 0 ? "  ·  " + view.liveSnapshots + " live snapshots from the plugin" : ""
    $("status").textContent =
      (view.problem ? view.problem : view.database ? "following " + view.database : "Forge has not run in this workspace yet: waiting for its database") + live
    $("status").className = view.problem ? "problem" : ""
    const list = visible()
    if (selected === null || !view.instances.has(selected) || !list.some((i) => i.key === selected)) selected = list.length > 0 ? list[0].key : null
    renderList(list)
    renderWatchdog()
    renderDetail(selected === null ? null : view.instances.get(selected))
  }

  // The list is built again only when what it shows changed (a record written, the filters, the selection).
  let listed = null
  function renderList(list) {
    $("count").textContent = list.length + " of " + view.instances.size
    const shown = list.slice(0, 2000)
    const signature = selected + "|" + shown.map((i) => i.key + "@" + i.revision + "@" + i.updatedAt).join("|")
    if (signature === listed) return
    listed = signature
    const rows = shown.map((i) => {
      const row = el("button", "instance" + (i.key === selected ? " selected" : "") + (i.final ? " final" : ""))
      row.dataset.key = i.key
      row.append(el("span", "machine", i.machine), el("span", "state", i.state), el("span", "id", short(i.instance)))
      if (i.detail) row.append(el("span", "detail", i.detail))
      if (i.live) row.append(el("span", "detail", "live from the plugin (not stored)"))
      return row
    })
    $("instances").replaceChildren(...(rows.length > 0 ? rows : [el("p", "empty", "no lifecycle matches the filters")]))
  }

  function renderWatchdog() {
    const f = filters()
    const shown = f.machine === "" || f.machine === "watchdog"
    $("watchdog").hidden = !shown
    if (!shown) return
    const entries = view.watchdog.filter((w) => f.session === "" || w.session === f.session).slice(-200).reverse()
    $("watchdog-entries").replaceChildren(
      ...(entries.length > 0
        ? entries.map((w) => {
            const line = el("li", "", time(w.at) + "  " + w.kind + (w.subject ? "  " + w.subject : "") + (w.session ? "  session " + w.session : ""))
            line.title = JSON.stringify(w.entry, null, 2)
            return line
          })
        : [el("li", "empty", "no watchdog calls")]),
    )
  }

  function activeIds(machine, value) {
    const ids = []
    const walk = (v, prefix) => {
      if (typeof v === "string") ids.push(prefix + "." + v)
      else if (v && typeof v === "object")
        for (const [k, child] of Object.entries(v)) {
          ids.push(prefix + "." + k)
          walk(child, prefix + "." + k)
        }
    }
    walk(value, machine)
    return ids
  }

  function highlight(instance) {
    const box = $("diagram")
    // Until its diagram is in, nothing is shown highlighted (the diagram's arrival highlights it).
    if (!box.querySelector("svg")) return
    const ids = new Set(activeIds(instance.machine, instance.value))
    for (const g of box.querySelectorAll("g.node, g.cluster")) {
      const title = g.querySelector("title")
      const name = title ? title.textContent.replace(/^cluster_/, "") : ""
      g.classList.toggle("forge-active", ids.has(name))
    }
    if (box.dataset.state !== instance.state || box.dataset.key !== instance.key) {
      // A machine's diagram is larger than the box: its innermost active state is brought into view.
      const active = box.querySelectorAll("g.forge-active")
      if (active.length > 0) active[active.length - 1].scrollIntoView({ block: "center", inline: "center" })
      box.dataset.key = instance.key
      box.dataset.state = instance.state
      box.dataset.shownAt = String(Date.now())
    }
  }

  function showDiagram(instance) {
    const box = $("diagram")
    if (shownMachine === instance.machine) return highlight(instance)
    shownMachine = instance.machine
    if (!diagrams.has(instance.machine))
      diagrams.set(instance.machine, fetch("/diagram/" + encodeURIComponent(instance.machine) + ".svg").then((r) => (r.ok ? r.text() : "")))
    const load = (diagramLoad = diagrams.get(instance.machine))
    load.then((svg) => {
      if (diagramLoad !== load) return
      box.innerHTML = svg
      if (!svg) box.textContent = "no diagram of " + instance.machine
      const current = selected === null ? null : view.instances.get(selected)
      if (current && current.machine === instance.machine) highlight(current)
    })
  }

  let fetchedFor = null
  function renderDetail(instance) {
    $("detail").hidden = !instance
    if (!instance) return
    $("title").textContent = instance.machine + " " + instance.instance
    $("facts").textContent =
      "state " + instance.state + (instance.final ? " (final)" : "") + "  ·  session " + (instance.session || "-") + "  ·  updated " + time(instance.updatedAt) + (instance.detail ? "  ·  " + instance.detail : "") + (instance.live ? "  ·  live from the plugin's inspect option, not stored" : "")
    showDiagram(instance)
    // Every write of the record is a new stamp: its log, context and document are read again.
    const stamp = instance.key + "@" + instance.revision + "@" + instance.updatedAt
    if (fetchedFor === stamp) return
    fetchedFor = stamp
    const query = "?machine=" + encodeURIComponent(instance.machine) + "&instance=" + encodeURIComponent(instance.instance)
    fetch("/api/instance" + query)
      .then((r) => (r.ok ? r.json() : null))
      .then((row) => {
        if (fetchedFor !== stamp) return
        $("context").textContent = row && row.snapshot ? JSON.stringify(row.snapshot.context, null, 2) : "(no record)"
        $("log").replaceChildren(
          ...(row ? row.transitions : []).map((t) => {
            const line = el("tr")
            line.append(el("td", "", time(t.at)), el("td", "", t.from), el("td", "event", t.event), el("td", "", t.to))
            return line
          }),
        )
      })
    fetch("/api/document" + query)
      .then((r) => r.text())
      .then((text) => {
        if (fetchedFor === stamp) $("document").textContent = text
      })
  }

  // One listener for every row of the list.
  $("instances").addEventListener("click", (e) => {
    const row = e.target.closest("button.instance")
    if (!row) return
    selected = row.dataset.key
    render()
  })
  for (const key of ["session", "machine"])
    $("filter-" + key).addEventListener("change", (e) => {
      chosen[key] = e.target.value
      render()
    })
  apply(JSON.parse($("forge-initial").textContent))
  render()
  const stream = new EventSource("/events")
  for (const type of ["reset", "instances", "removed", "watchdog", "problem", "live"])
    stream.addEventListener(type, (e) => apply(JSON.parse(e.data)))
  stream.onopen = () => ($("live").className = "live")
  stream.onerror = () => ($("live").className = "down")
})()
`
