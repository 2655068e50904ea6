#!/usr/bin/env node
// The baseline of bench/create-csv.mjs: a minimal undici client, as a script would write one, run as its own
// process (so its JIT starts cold, like ship's): POST /shipments for every body of a JSON-lines file,
// CONCURRENCY at a time over one keep-alive pool, reading each answer (a real client takes the labels out of
// it). Prints one JSON line: the posting time (first request to last answer), failures, CPU and the main
// thread's busy time.
//
// With LABELS_DIR set, it also writes each answer's ZPL label to a file there (one writeFileSync per parcel,
// named after the shipment reference, as each answer comes): the same files as ship's, written the way a simple
// script would (ship writes them a few at a time between network reads: src/labels/index.ts LabelBatchWriter).
//
// Usage: node bench/minimal-client.mjs BODIES.jsonl BASE_URL CONCURRENCY   (SHIP_API_KEY, SHIP_TOKEN [, LABELS_DIR] in env)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

const [file, baseUrl, concurrencyArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const bodies = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const url = new URL(baseUrl);
const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
const path = `${url.pathname.replace(/\/$/, '')}/shipments`;
const headers = {
  'content-type': 'application/json',
  accept: 'application/json',
  'x-service-api-key': process.env.SHIP_API_KEY,
  'x-service-token': process.env.SHIP_TOKEN,
};
const labelsDir = process.env.LABELS_DIR;
if (labelsDir) mkdirSync(labelsDir, { recursive: true });
let next = 0;
let failed = 0;
const cpu0 = process.cpuUsage();
const elu0 = performance.eventLoopUtilization();
const started = performance.now();
const worker = async () => {
  while (next < bodies.length) {
    const body = bodies[next++];
    const res = await pool.request({ method: 'POST', path, headers, body });
    const text = await res.body.text();
    if (res.statusCode >= 300) failed++;
    else {
      const answer = JSON.parse(text);
      if (labelsDir) answer.data.forEach((p, i) => writeFileSync(join(labelsDir, `${p.shipment_reference}_${i + 1}.zpl`), p.zpl));
    }
  }
};
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpu0);
// The main thread's busy time (event-loop utilisation), as ship's is measured (bench/usage-preload.mjs).
const mainUs = performance.eventLoopUtilization(elu0).active * 1000;
await pool.close();
console.log(JSON.stringify({ ms, failed, cpuUs: cpu.user + cpu.system, mainUs, count: bodies.length }));
