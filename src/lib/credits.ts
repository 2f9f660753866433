// Amounts are kept in micro-credits (integers: 1 credit = 1,000,000 micro-credits, prices in
// src/metering/prices.ts); the API and the dashboard show credits.
export const toCredits = (micro: number) => micro / 1_000_000;

/** Micro-credits as the dashboard shows credits: two decimals from 1, two significant digits below, "0" for none. */
export const formatCredits = (micro: number): string => {
  const c = toCredits(micro);
  return c === 0 ? "0" : c >= 1 ? c.toFixed(2) : c.toPrecision(2);
};
