// An agent's turn-taking settings made concrete: null settings are the deployment's, the shortest
// wait never exceeds the longest, Flux's thresholds follow eagerness within Deepgram's documented
// ranges, and the transcript detector's verdict by eagerness.
import { describe, expect, it } from "vitest";
import { detectorWaits, FLUX_THRESHOLDS, soundsFinished, streamTurnOptions, turnPlanOf } from "../../../../src/calls/pipeline/turn-plan";
import { TURN_TAKING_DEFAULTS } from "../../../../src/db/schema";

const config = { CALL_ENDPOINTING_MS: 500, CALL_PAUSE_MS: 200, CALL_SPECULATION: "on", CALL_MIN_INTERRUPTION_MS: 700 } as const;

describe("an agent's turn plan", () => {
  it("takes the deployment's values for null settings, and the agent's where set", () => {
    expect(turnPlanOf(TURN_TAKING_DEFAULTS, config)).toEqual({
      eagerness: "normal",
      minWaitMs: 200,
      maxWaitMs: 500,
      maxWaitSet: false,
      interruptionMinWords: 1,
      interruptionMinMs: 700,
    });
    const plan = turnPlanOf(
      { eagerness: "patient", minWaitMs: 400, maxWaitMs: 2_000, interruptionMinWords: 3, interruptionMinMs: 1_200 },
      config,
    );
    expect(plan).toMatchObject({ minWaitMs: 400, maxWaitMs: 2_000, maxWaitSet: true, interruptionMinWords: 3, interruptionMinMs: 1_200 });
    expect(detectorWaits(plan, true)).toEqual({ endpointingMs: 2_000, pauseMs: 400 });
    expect(detectorWaits(plan, false)).toEqual({ endpointingMs: 2_000 });
  });

  it("never waits less for an unfinished turn than for a finished one (a PATCH can set them apart)", () => {
    const plan = turnPlanOf({ ...TURN_TAKING_DEFAULTS, minWaitMs: 1_500 }, config);
    expect(plan).toMatchObject({ minWaitMs: 500, maxWaitMs: 500 });
  });

  it("maps to the streaming provider: Nova's segment and utterance ends, Flux's thresholds and timeout", () => {
    const normal = streamTurnOptions(turnPlanOf(TURN_TAKING_DEFAULTS, config), true);
    expect(normal).toEqual({ endpointingMs: 200, utteranceEndMs: 1_000, eotThreshold: 0.7, eagerEotThreshold: 0.5 });
    const patient = streamTurnOptions(turnPlanOf({ ...TURN_TAKING_DEFAULTS, eagerness: "patient", maxWaitMs: 3_000 }, config), false);
    expect(patient).toEqual({ endpointingMs: 200, utteranceEndMs: 3_000, eotThreshold: 0.85, eotTimeoutMs: 3_000 });
    // Deepgram: eot_threshold 0.5 to 0.9, eager_eot_threshold 0.3 to 0.9 and never above it
    for (const { eot, eager } of Object.values(FLUX_THRESHOLDS)) {
      expect(eot).toBeGreaterThanOrEqual(0.5);
      expect(eot).toBeLessThanOrEqual(0.9);
      expect(eager).toBeGreaterThanOrEqual(0.3);
      expect(eager).toBeLessThan(eot);
    }
    const eager = FLUX_THRESHOLDS.eager.eot;
    expect(eager).toBeLessThan(FLUX_THRESHOLDS.normal.eot);
    expect(FLUX_THRESHOLDS.normal.eot).toBeLessThan(FLUX_THRESHOLDS.patient.eot);
  });
});

describe("whether a transcript sounds finished", () => {
  it.each([
    ["Next Tuesday works.", { patient: false, normal: true, eager: true }],
    ["Is that right?", { patient: false, normal: true, eager: true }],
    ["next Tuesday", { patient: false, normal: false, eager: true }],
    ["I'd like to book for next Tuesday and", { patient: false, normal: false, eager: false }],
    ["So, um", { patient: false, normal: false, eager: false }],
    ["Well, let me think,", { patient: false, normal: false, eager: false }],
    ["I was going to say...", { patient: false, normal: false, eager: false }],
    ["Ask for Dr.", { patient: false, normal: false, eager: false }],
    ["Können Sie mir helfen", { patient: false, normal: false, eager: true }],
    ["", { patient: false, normal: false, eager: false }],
  ])("%j", (text, verdicts) => {
    for (const [eagerness, finished] of Object.entries(verdicts))
      expect(soundsFinished(text, eagerness as "patient" | "normal" | "eager"), eagerness).toBe(finished);
  });
});
