// Rate-limit windows are aligned to the epoch, on the worker as here.

/**
 * Waits until the current window of `windowMs` has at least `clearMs` left. Upstash's sliding
 * window weighs the previous window's count and rounds it down, so a burst that crosses a window
 * edge gets one request more than the limit; a test that counts up to the limit starts clear of
 * the edge.
 */
export async function clearOfWindowEdge(windowMs = 60_000, clearMs = 15_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < clearMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
