// One check of `forgecharts doctor` and its verdict: a failing check makes the command exit 1; a warning says what
// will not work and how to get it working.

export interface DoctorCheck {
  check: "opencode" | "plugin" | "config" | "sandbox" | "database" | "forge.json"
  verdict: "ok" | "warn" | "fail"
  detail: string
}
