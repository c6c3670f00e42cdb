// The /goal command's entry in the slash-command popup; its texts live with the goal service (services/goal/goal.command.ts).

export const GOAL_COMMAND_DESCRIPTION = "Goal: <objective> --check … · add · pause · resume · confirm · discard · stop"
