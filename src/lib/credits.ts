// Amounts are kept in micro-credits (integers: 1 credit = 1,000,000 micro-credits, prices in
// src/metering/prices.ts); the API and the dashboard show credits.
export const toCredits = (micro: number) => micro / 1_000_000;
