// The print ledger of `create --csv --printer`: which shipments the run owes the printer, kept on disk as the run
// goes, so that no way of ending the run loses them (a second Ctrl-C, a closed terminal, kill -9). A raw port
// gives no acknowledgement, and FILE.unprinted.txt is written only at the end of a run that gets there.
//
// Beside the resume journal (`<journal>.printing`), one line a change, appended: `+"REF"` before the shipment
// is sent (it may be created, and then its labels are owed), `-"REF"` once its labels all went out. A rerun
// owes what has a `+` and no later `-` (a reference that was never created is simply created, and printed, by
// the rerun). At the end of a run the ledger is rewritten with what is still owed, or removed.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../labels/index.js';
import { makeDirSync } from '../../util/mkdir.js';
import { NO_FOLLOW, refusedOr } from '../../util/own-files.js';

const PURPOSE = 'the print ledger';

/** Where the print ledger of a run whose journal is `journalPath` lives. */
export function printLedgerPathFor(journalPath: string): string {
  return `${journalPath}.printing`;
}

/**
 * What an earlier run's ledger says of each reference it names, its last line for it deciding: `owed` (its
 * labels still to send) or `settled` (they went out, or nothing is owed for it). Empty when there is no ledger.
 */
export function readLedger(path: string): Map<string, 'owed' | 'settled'> {
  const state = new Map<string, 'owed' | 'settled'>();
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch {
    return state;
  }
  for (const line of text.split('\n')) {
    const ref = parseRef(line.slice(1));
    if (ref === undefined) continue; // a torn last line (the run was killed while writing it)
    if (line[0] === '+') state.set(ref, 'owed');
    else if (line[0] === '-') state.set(ref, 'settled');
  }
  return state;
}

/** The references a ledger, as readLedger gives it, still owes the printer. */
export function owedOf(ledger: ReadonlyMap<string, 'owed' | 'settled'>): Set<string> {
  return new Set([...ledger].flatMap(([ref, st]) => (st === 'owed' ? [ref] : [])));
}

/** The references an earlier run's ledger still owes the printer. */
export function owedByLedger(path: string): Set<string> {
  return owedOf(readLedger(path));
}

function parseRef(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The ledger of a run with --printer, appended to as the run goes. */
export class PrintLedger {
  private fd: number | undefined;
  /** The references this run owed the printer (each written once). */
  readonly owedNow = new Set<string>();

  constructor(readonly path: string) {}

  /** The shipment is about to be sent (or an earlier run owed it): its labels are owed from now on. */
  owe(ref: string): void {
    if (this.owedNow.has(ref)) return;
    this.owedNow.add(ref);
    this.append(`+${JSON.stringify(ref)}\n`);
  }

  /** Every label of the shipment went out, or none is owed (the service had it already: not ours to print). */
  settle(ref: string): void {
    this.append(`-${JSON.stringify(ref)}\n`);
  }

  /**
   * Opens it (its directory made if missing): before anything is sent, so that a ledger that cannot be kept (a
   * link planted at its path, a read-only directory) stops the run before it creates anything.
   */
  open(): this {
    makeDirSync(dirname(this.path));
    try {
      this.fd = fs.openSync(this.path, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | NO_FOLLOW, 0o600);
    } catch (e) {
      throw refusedOr(e, this.path, PURPOSE);
    }
    return this;
  }

  private append(line: string): void {
    if (this.fd === undefined) this.open();
    fs.writeSync(this.fd!, line);
  }

  /** Closes the ledger, leaving it holding `owed` (in that order), or removed when nothing is owed. */
  finish(owed: readonly string[]): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    settleLedger(this.path, owed);
  }
}

/** Leaves the ledger at `path` holding `owed`, or removes it when nothing is owed (best effort). */
export function settleLedger(path: string, owed: readonly string[]): void {
  try {
    if (owed.length) writeFileAtomic(path, owed.map((ref) => `+${JSON.stringify(ref)}\n`).join(''), { own: PURPOSE, mode: 0o600 });
    else fs.rmSync(path, { force: true });
  } catch {
    // At worst the ledger owes more than it should: a rerun with --printer sends those labels again.
  }
}
