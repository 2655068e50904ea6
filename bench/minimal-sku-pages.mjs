#!/usr/bin/env node
// The baseline of bench/skus-export.mjs: a minimal undici client, run as its own process (its JIT starts cold,
// like ship's), fetching GET /skus page after page by links.next over one keep-alive connection and parsing
// each page. Prints one JSON line: the time of the fetch loop (first request to last page parsed), pages, rows.
//
// Usage: node bench/minimal-sku-pages.mjs BASE_URL   (SHIP_API_KEY and SHIP_TOKEN in env)
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';

const [baseUrl] = process.argv.slice(2);
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 1 });
const headers = { accept: 'application/json', 'x-service-api-key': process.env.SHIP_API_KEY, 'x-service-token': process.env.SHIP_TOKEN };
let url = `${baseUrl}/skus`;
let pages = 0;
let rows = 0;
const t0 = performance.now();
while (url) {
  const res = await request(url, { dispatcher: agent, headers });
  const text = await res.body.text();
  if (res.statusCode >= 400) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  const page = JSON.parse(text);
  pages++;
  rows += page.data.length;
  url = page.links.next;
}
const ms = performance.now() - t0;
await agent.close();
console.log(JSON.stringify({ ms, pages, rows }));
