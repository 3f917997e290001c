/**
 * Measures an API's latency from a process of its own (so the bench's receivers do not skew it):
 * GET <url>/api/v1/me one request at a time until stdin closes, then prints the timings as JSON.
 *
 *   bun bench/lib/latency-probe.ts URL KEY
 */
const [url, key] = process.argv.slice(2) as [string, string];
let stop = false;
(async () => {
  for await (const _ of Bun.stdin.stream()) {
    // any input, or its end, stops the probe
  }
  stop = true;
})();
const times: number[] = [];
while (!stop && times.length < 200_000) {
  const started = performance.now();
  const response = await fetch(`${url}/api/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  times.push(performance.now() - started);
}
console.log(JSON.stringify(times));
export {};
