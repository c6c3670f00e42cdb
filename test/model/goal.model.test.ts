import { HELD_OBJECTIVE } from "./goal.birth"
import { SEND_FAILURE, SESSION, startGoalSut } from "./goal.sut"
import { FakeAuditWorkspace, MODEL_DRIVER } from "./goal.fakes"
import { auditFailureText } from "./goal.sut.audit"
import { describeModel, goalModel } from "../../testing"

// Paths generated from the goal machine drive the real GoalService and GoalLoop on the workspace's one LifecycleHost
// (SQLite in a temp workspace) writing real goal documents; at every step service, database row and log, document,
// prompts and the loop's timer must agree with the model (goal.agreement.ts). Fakes only at the edges: clock, timers,
// prompter, session facts, check runner (goal.fakes.ts).
//
// The worlds are the package's (testing/events/goal.events.ts), each a config told apart by the goal's objective: in
// "requests" the user and the model ask and answer dialogs and the session never goes idle; in "loop" the goal is
// armed at once and the loop runs; in "audit" a verified completion goes to an auditor session. Each keeps its paths
// few enough for a run of well under a minute. Times are fixed per event (as in the job model), so a path may replay
// them out of order; the goal lifecycle only ever compares the times its events carry.
//
// Reached through the service's side roads, or asked only:
// - goal.revise on a queued goal: goal_write revise=true only revises the live goal, and no caller follows a queued
//   goal's document; the SUT edits the document by hand and calls the service's own follower (followDocument).
// - goal.checked on a queued goal: goal_check only checks a live goal (NoGoalError), so nothing sends it; the SUT asks
//   the machine (`can`), as the plan's tool gate does, and sees the service refuse.
// - goal.resume on a queued goal is not producible at all (/goal resume arms it: goal.arm), so no world offers it.
// - goal.arm on a live goal: goal_resume resumes it instead, so the SUT asks goal_write arm=true, which the new
//   goal's birth gate refuses (one live goal per session) before anything is written.
//
// A fourth world ends at the birth gate: the session holds a live goal (the SUT arms one first, by the user's own
// command) and goal_write asks to arm a new one beside it. The machine refuses that birth; the service throws its
// words, and nothing of the new goal is written or recorded.
// - goal.complete on an active goal is two steps of the service: its run enters the Check Log (goal.checked), then
//   the gate; the SUT expects both (goal.sut.ts).

const world = goalModel({
  session: SESSION,
  driver: MODEL_DRIVER,
  sendFailure: SEND_FAILURE,
  heldObjective: HELD_OBJECTIVE,
  auditBase: FakeAuditWorkspace.BASE,
  auditFailure: auditFailureText,
})

describeModel({ ...world, start: startGoalSut })
