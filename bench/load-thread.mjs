// The load generator's thread (bench/load.ts): one autocannon run with the options it is given,
// every response's latency kept, and the result posted back once. Plain JavaScript, so the
// thread starts without the TypeScript loader.
import { parentPort, workerData } from "node:worker_threads";
import autocannon from "autocannon";

const { options, watchdogMs } = workerData;
const latencies = [];
try {
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(options, (err, res) => {
      clearTimeout(watchdog);
      if (err) reject(err);
      else resolve(res);
    });
    instance.on("response", (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
    });
    const watchdog = setTimeout(() => instance.stop(), watchdogMs);
  });
  // The histograms and the request/response objects do not cross threads; the summary does.
  const { statusCodeStats, duration, non2xx, errors, timeouts } = result;
  parentPort.postMessage({ ok: true, result: { statusCodeStats, duration, non2xx, errors, timeouts }, latencies });
} catch (err) {
  parentPort.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
}
