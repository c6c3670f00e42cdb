import { PlanGate } from "./plan.gate"

// A tool runner of its own, with Forge's plan gate in front: while the plan is a draft, a write is refused and a read
// goes ahead; once the user approves the plan, the write runs.

type Tool = (args: string) => string
const files = new Map<string, string>([["README.md", "# demo\n"]])
const tools: Record<string, Tool> = {
  read: (file) => files.get(file) ?? "(no such file)",
  write: (file) => {
    files.set(file, "written\n")
    return `wrote ${file}`
  },
}

function run(gate: PlanGate, tool: string, args: string): string {
  if (!gate.canRun(tool)) return `${tool} refused: the plan is ${gate.state}, and a draft plan bans every write and exec tool until the user approves it`
  return (tools[tool] as Tool)(args)
}

const gate = new PlanGate({ planPath: "plans/demo.md", sessionId: "runner", tasks: [{ number: 1, ticked: false }], criteria: ["NOTES.md exists"] })
console.log(`read: ${run(gate, "read", "README.md").trim()}`)
console.log(run(gate, "write", "NOTES.md"))
console.log(`approved: ${await gate.approve(async () => true)}`)
console.log(run(gate, "write", "NOTES.md"))
console.log(`NOTES.md: ${files.get("NOTES.md")?.trim()}`)
