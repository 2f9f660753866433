// What the agent test operations share: their tag and the answer of an operation that returns runs.
// The shapes they document are defined once, in src/agent-tests/schema.ts.
import type { RunWithTest } from "../../../agent-tests/service";
import { toRunView } from "../../../agent-tests/views";

export const TAG = ["Agent tests"];

export const shownRun = ({ run, testName }: RunWithTest) => toRunView(run, testName);
