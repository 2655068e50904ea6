// Preloaded (`node --import`) into the `ship create --csv` runs of bench/create-csv.mjs. At exit it writes, as JSON to
// the file named by SHIP_BENCH_USAGE_FILE:
//   - maxRSS: the process's peak resident memory (getrusage; the kernel's high-water mark), in KB;
//   - cpuUs: the whole process's CPU (all threads: the main one, V8's compiler and GC helpers, libuv's pool);
//   - bulkCpuUs / bulkMainUs: the same CPU, and the main thread's busy time (event-loop utilisation), counted from
//     the first POST /shipments on: the bulk phase only, to set beside the minimal client's own figures.
// undici announces each request on a diagnostics channel; the subscription ends with the first one.
import diagnosticsChannel from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const file = process.env.SHIP_BENCH_USAGE_FILE;
let first;
function onRequest({ request }) {
  if (request.method !== 'POST' || !String(request.path).endsWith('/shipments')) return;
  first = { cpu: process.cpuUsage(), elu: performance.eventLoopUtilization() };
  diagnosticsChannel.unsubscribe('undici:request:create', onRequest);
}
if (file) {
  diagnosticsChannel.subscribe('undici:request:create', onRequest);
  process.on('exit', () => {
    const u = process.resourceUsage();
    const out = { maxRSS: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime };
    if (first) {
      const c = process.cpuUsage(first.cpu);
      out.bulkCpuUs = c.user + c.system;
      out.bulkMainUs = performance.eventLoopUtilization(first.elu).active * 1000;
    }
    writeFileSync(file, JSON.stringify(out));
  });
}
