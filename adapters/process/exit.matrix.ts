// The JavaScript side of "jobs die with the host": whenever the host is about to die — normal exit, a fatal
// signal, a fatal uncaught error — kill every live job synchronously (no async work runs at that point).
// It never changes how the host itself behaves: a signal or error the host handles on its own stays the host's
// business (if the host then exits, the `exit` listener still kills), and a fatal one ends the host exactly as the
// runtime would have. SIGKILL and other deaths without JavaScript are the fence's part.

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const

/** Installs the listeners; returns the function that removes them again. */
export function installExitMatrix(killAllNow: () => void): () => void {
  let running = false
  const run = (): void => {
    if (running) return
    running = true
    try {
      killAllNow()
    } catch {
      // The host is going down: there is no one left to report a failed kill to, and the fence still stands.
    } finally {
      running = false
    }
  }

  const onExit = (): void => run()

  const signalListeners = SIGNALS.map((name) => {
    const listener = (): void => {
      // Other listeners mean the host handles this signal itself; it may well keep running.
      if (process.listenerCount(name) > 1) return
      run()
      // Alone, we replaced the default action (termination): restore it and let the signal do what it would have.
      process.removeListener(name, listener)
      process.kill(process.pid, name)
    }
    return { name, listener }
  })

  // The monitor observes an uncaught error before the runtime acts on it, without counting as a handler, so the
  // error is neither swallowed nor rerouted. It is fatal only when no uncaughtException handler exists.
  // (Node also reports fatal unhandled rejections here; Bun does not, and its `exit` event covers them.)
  const onUncaught = (): void => {
    if (process.listenerCount("uncaughtException") === 0) run()
  }

  process.on("exit", onExit)
  for (const { name, listener } of signalListeners) process.on(name, listener)
  process.on("uncaughtExceptionMonitor", onUncaught)

  return () => {
    process.removeListener("exit", onExit)
    for (const { name, listener } of signalListeners) process.removeListener(name, listener)
    process.removeListener("uncaughtExceptionMonitor", onUncaught)
  }
}
