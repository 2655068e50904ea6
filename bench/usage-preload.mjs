// Preloaded (`node --import`) into the `ship create --csv` runs of bench/create-csv.mjs. At exit it writes, as JSON to
// the file named by SHIP_BENCH_USAGE_FILE:
//   - maxRSS: the process's peak resident memory (getrusage; the kernel's high-water mark), in KB;
//   - cpuUs: the whole process's CPU (all threads: the main one, V8's compiler and GC helpers, libuv's pool);
//   - bulkCpuUs / bulkMainUs: the same CPU, and the main thread's busy time (event-loop utilisation), counted from
//     the first POST /shipments on: the bulk phase only, to set beside the minimal client's own figures.
//   - threads: how many worker threads the process started (ship writes its label files on one once creating them
//     proves slow: src/labels/index.ts LabelWorker; the thread's isolate adds to the peak memory).
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
let threads = 0;
if (file) {
  diagnosticsChannel.subscribe('undici:request:create', onRequest);
  // Counted where ship takes the class from (process.getBuiltinModule, the same object as require's).
  const workerThreads = process.getBuiltinModule('node:worker_threads');
  const Worker = workerThreads.Worker;
  workerThreads.Worker = class extends Worker {
    constructor(...args) {
      super(...args);
      threads++;
    }
  };
  process.on('exit', () => {
    const u = process.resourceUsage();
    const out = { maxRSS: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime, threads };
    if (first) {
      const c = process.cpuUsage(first.cpu);
      out.bulkCpuUs = c.user + c.system;
      out.bulkMainUs = performance.eventLoopUtilization(first.elu).active * 1000;
    }
    writeFileSync(file, JSON.stringify(out));
  });
}
