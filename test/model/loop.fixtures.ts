// The loop model's inputs and records are the package's model world's (testing/events/loop.fixtures.ts): the loop
// tests take them from here.
export { CODED, MAX_PASSES, UNVERIFIED, inputFor, restored } from "../../testing/events/loop.fixtures"
