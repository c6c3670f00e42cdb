import { NEIGHBOUR, startJobSut } from "./job.sut"
import { describeModel, jobModel } from "../../testing"

// Paths generated from the job machine drive the real JobSupervisor over a process world that spawns nothing, with
// simulated clock and timers and the journal in an in-memory SQLite database; service, store and model must agree at
// every step. The world (testing/events/job.events.ts): with keep_alive: false, the match's killAfterMatch effect
// feeds the kill back into the machine, and the SUT expects it from the step that asked for the effect. The birth
// gate's facts are what the supervisor reads: no live survive job on a fresh host, against the cap it is given
// (MAX_SURVIVORS, or 0 to see a survive job refused).

describeModel({ ...jobModel({ neighbour: NEIGHBOUR }), start: startJobSut })
