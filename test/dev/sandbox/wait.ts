// Waiting in the sandboxes' own tests: what a sandbox records arrives a little after the call that caused it.

/** The first value `find` gives that is not undefined; throws after `timeoutMs`. */
export async function found<T>(find: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = find();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}
