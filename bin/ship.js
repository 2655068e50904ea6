#!/usr/bin/env node
// Entry point: kept tiny so startup only pays for what the chosen command loads.
import module from 'node:module';

// Node >= 22.1 can cache compiled code between runs; scripts call `ship` thousands of times.
if (typeof module.enableCompileCache === 'function') {
  try {
    module.enableCompileCache();
  } catch {
    // a read-only cache dir must never stop the CLI
  }
}

const { main } = await import('../dist/main.js');
process.exitCode = await main(process.argv.slice(2));
