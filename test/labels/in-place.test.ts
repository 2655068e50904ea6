import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LabelBatchWriter, LabelNamer, MAX_STEM, safeFileStem, writeFileInPlace, writeLabels } from '../../src/labels/index.js';

const ZPL = '^XA^FO50,50^FDParcel^FS^XZ';

describe('writeLabels with inPlace', () => {
  it('writes the same names and bytes as the atomic writes, with no temp files left', () => {
    const a = mkdtempSync(join(tmpdir(), 'ship-inplace-a-'));
    const b = mkdtempSync(join(tmpdir(), 'ship-inplace-b-'));
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 7)]).toString('base64');
    for (const [format, labels] of [
      // The in-place ZPL is written from the string itself: the same UTF-8 bytes, accents and emoji included.
      ['ZPL', [ZPL, `${ZPL}\n^XA^FDtwo^XZ`, '^XA^CI28^FDZoë Brontë, Göteborg ☃ 😀^FS^XZ']],
      ['PDF', [pdf]],
    ] as const) {
      const atomic = writeLabels([...labels], { dir: a, shipmentRef: 'ORD/1', format, namer: new LabelNamer() });
      const inPlace = writeLabels([...labels], { dir: b, shipmentRef: 'ORD/1', format, namer: new LabelNamer(), inPlace: true });
      expect(inPlace.map((p) => p.slice(b.length))).toEqual(atomic.map((p) => p.slice(a.length)));
      for (let i = 0; i < atomic.length; i++) expect(readFileSync(inPlace[i])).toEqual(readFileSync(atomic[i]));
    }
    expect(readdirSync(b).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  });

  it('replaces a torn file left by an earlier attempt with the whole label', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-inplace-'));
    writeFileSync(join(dir, 'R-1_1.zpl'), `${ZPL}${ZPL}${ZPL}`.repeat(3)); // longer than the label: must be cut
    const [path] = writeLabels([ZPL], { dir, shipmentRef: 'R-1', format: 'ZPL', inPlace: true });
    expect(readFileSync(path, 'utf8')).toBe(ZPL);
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes the directory again if it went away during the run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-inplace-'));
    writeFileInPlace(join(dir, 'a.zpl'), ZPL);
    rmSync(dir, { recursive: true, force: true });
    writeFileInPlace(join(dir, 'b.zpl'), ZPL);
    expect(readFileSync(join(dir, 'b.zpl'), 'utf8')).toBe(ZPL);
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes the output directory again if it went away between two shipments of a run', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'ship-inplace-')), 'labels');
    writeLabels([ZPL], { dir, shipmentRef: 'R-1', format: 'ZPL', inPlace: true });
    rmSync(dir, { recursive: true, force: true });
    const [path] = writeLabels([ZPL], { dir, shipmentRef: 'R-2', format: 'ZPL', inPlace: true });
    expect(readFileSync(path, 'utf8')).toBe(ZPL);
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(process.platform === 'win32')('never writes through a symbolic link where the label goes (names are predictable): refused, the file it points to untouched, the link left', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-inplace-link-'));
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious', { mode: 0o644 });
    mkdirSync(join(dir, 'labels'));
    symlinkSync(victim, join(dir, 'labels', 'R-1_1.zpl'));
    expect(() => writeLabels([ZPL], { dir: join(dir, 'labels'), shipmentRef: 'R-1', format: 'ZPL', inPlace: true })).toThrow(
      expect.objectContaining({ code: 'ELOOP', message: expect.stringMatching(/R-1_1\.zpl is a symbolic link: a label is never written through one .*remove the link/) }),
    );
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(dir, 'labels', 'R-1_1.zpl')).isSymbolicLink()).toBe(true);
    // A labels directory that is itself a link is followed as usual.
    symlinkSync(join(dir, 'labels'), join(dir, 'linked'));
    expect(writeLabels([ZPL], { dir: join(dir, 'linked'), shipmentRef: 'R-2', format: 'ZPL', inPlace: true })).toEqual([join(dir, 'linked', 'R-2_1.zpl')]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('throws the write error itself when the file cannot be written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-inplace-'));
    mkdirSync(join(dir, 'taken.zpl'));
    expect(() => writeFileInPlace(join(dir, 'taken.zpl'), ZPL)).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(process.getuid?.() === 0)('throws when the file cannot be written, leaving nothing behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-inplace-'));
    writeFileInPlace(join(dir, 'ok.zpl'), ZPL);
    chmodSync(dir, 0o500);
    try {
      expect(() => writeFileInPlace(join(dir, 'no.zpl'), ZPL)).toThrow();
      expect(existsSync(join(dir, 'no.zpl'))).toBe(false);
    } finally {
      chmodSync(dir, 0o700);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('LabelBatchWriter', () => {
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 7)]).toString('base64');

  it('writes the names and bytes writeLabels writes, in later turns of the event loop, up to filesPerTurn files a turn', async () => {
    const a = mkdtempSync(join(tmpdir(), 'ship-batch-a-'));
    const b = mkdtempSync(join(tmpdir(), 'ship-batch-b-'));
    const namerA = new LabelNamer();
    const namerB = new LabelNamer();
    const batch = new LabelBatchWriter({ filesPerTurn: 2 });
    const expected = [
      writeLabels([ZPL, `${ZPL}^FDtwo`], { dir: a, shipmentRef: 'ORD/1', format: 'ZPL', namer: namerA }),
      writeLabels(['^XA^CI28^FDZoë ☃ 😀^FS^XZ'], { dir: a, shipmentRef: 'ord/1', format: 'ZPL', namer: namerA }),
      writeLabels([pdf], { dir: a, shipmentRef: 'P-1', format: 'PDF', namer: namerA }),
    ];
    const first = batch.write([ZPL, `${ZPL}^FDtwo`], { dir: b, shipmentRef: 'ORD/1', format: 'ZPL', namer: namerB });
    const second = batch.write(['^XA^CI28^FDZoë ☃ 😀^FS^XZ'], { dir: b, shipmentRef: 'ord/1', format: 'ZPL', namer: namerB });
    const third = batch.write([pdf], { dir: b, shipmentRef: 'P-1', format: 'PDF', namer: namerB });
    // Nothing is written during the calls (the answers that came meanwhile are read first)…
    expect(readdirSync(b)).toEqual([]);
    // …then a shipment's files at a time, up to two files a turn: the first shipment's two, then the next two.
    await new Promise((r) => setImmediate(r));
    expect(readdirSync(b).sort()).toEqual(expected[0].map((p) => p.slice(a.length + 1)).sort());
    await new Promise((r) => setImmediate(r));
    expect(readdirSync(b)).toHaveLength(4);
    const paths = await Promise.all([first, second, third]);
    expect(paths.flat().map((p) => p.slice(b.length))).toEqual(expected.flat().map((p) => p.slice(a.length)));
    for (const [i, p] of paths.flat().entries()) expect(readFileSync(p)).toEqual(readFileSync(expected.flat()[i]));
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  });

  it('a turn takes whole shipments: one with more parcels than filesPerTurn is written in one turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-batch-big-'));
    const batch = new LabelBatchWriter({ filesPerTurn: 2 });
    const big = batch.write([ZPL, ZPL, ZPL, ZPL, ZPL], { dir, shipmentRef: 'BIG', format: 'ZPL' });
    const small = batch.write([ZPL], { dir, shipmentRef: 'SMALL', format: 'ZPL' });
    await new Promise((r) => setImmediate(r));
    expect(readdirSync(dir)).toHaveLength(5);
    expect(await big).toHaveLength(5);
    expect(await small).toEqual([join(dir, 'SMALL_1.zpl')]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes everything waiting at once when maxWaiting files wait (a high --concurrency: the backlog stays bounded)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-batch-max-'));
    const batch = new LabelBatchWriter({ filesPerTurn: 2, maxWaiting: 5 });
    const first = Array.from({ length: 4 }, (_, i) => batch.write([ZPL], { dir, shipmentRef: `W${i}`, format: 'ZPL' }));
    expect(readdirSync(dir)).toEqual([]);
    // The fifth file waiting: all five are written in that call, none left to a turn.
    const fifth = batch.write([ZPL], { dir, shipmentRef: 'W4', format: 'ZPL' });
    expect(readdirSync(dir)).toHaveLength(5);
    await Promise.all([...first, fifth]);
    // The count starts again: the next one waits for its turn.
    const sixth = batch.write([ZPL], { dir, shipmentRef: 'W5', format: 'ZPL' });
    expect(readdirSync(dir)).toHaveLength(5);
    expect(await sixth).toEqual([join(dir, 'W5_1.zpl')]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a file that cannot be written fails its own shipment only, the partial file removed; the rest of the batch is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-batch-'));
    mkdirSync(join(dir, 'BAD_2.zpl'));
    const batch = new LabelBatchWriter({ filesPerTurn: 10 });
    const good = batch.write([ZPL], { dir, shipmentRef: 'GOOD', format: 'ZPL' });
    const bad = batch.write([ZPL, ZPL, ZPL], { dir, shipmentRef: 'BAD', format: 'ZPL' });
    const after = batch.write([ZPL], { dir, shipmentRef: 'AFTER', format: 'ZPL' });
    await expect(bad).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await good).toEqual([join(dir, 'GOOD_1.zpl')]);
    expect(await after).toEqual([join(dir, 'AFTER_1.zpl')]);
    // Its first parcel's file stays (as with writeLabels: the journal does not trust it), the third is never started.
    expect(readdirSync(dir).sort()).toEqual(['AFTER_1.zpl', 'BAD_1.zpl', 'BAD_2.zpl', 'GOOD_1.zpl']);
    rmSync(dir, { recursive: true, force: true });
  });

  describe('on a thread of its own (offThread, as a bulk create writes them)', () => {
    it('a directory that cannot be made fails those shipments (their promise), never the process', async () => {
      const base = mkdtempSync(join(tmpdir(), 'ship-batch-nodir-'));
      writeFileSync(join(base, 'file'), 'x');
      const batch = new LabelBatchWriter({ filesPerTurn: 10 }, { use: 'always' });
      await batch.threadStarted();
      await expect(batch.write([ZPL], { dir: join(base, 'file', 'labels'), shipmentRef: 'NODIR', format: 'ZPL' })).rejects.toMatchObject({ code: 'ENOTDIR' });
      await batch.close();
      rmSync(base, { recursive: true, force: true });
    });

    it.skipIf(process.platform === 'win32')('refuses a symbolic link where a label goes there too, leaving the link and its file alone', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ship-batch-link-'));
      const victim = join(dir, 'victim.txt');
      writeFileSync(victim, 'precious');
      symlinkSync(victim, join(dir, 'L-1_1.zpl'));
      const batch = new LabelBatchWriter({ filesPerTurn: 10 }, { use: 'always' });
      await batch.threadStarted();
      await expect(batch.write([ZPL], { dir, shipmentRef: 'L-1', format: 'ZPL' })).rejects.toMatchObject({ code: 'ELOOP', message: expect.stringContaining('L-1_1.zpl is a symbolic link') });
      expect(batch.jobsOffThread).toBe(1);
      await batch.close();
      expect(readFileSync(victim, 'utf8')).toBe('precious');
      expect(lstatSync(join(dir, 'L-1_1.zpl')).isSymbolicLink()).toBe(true);
      rmSync(dir, { recursive: true, force: true });
    });

    it("'when-slow' starts the thread only once a batch written here was slow per file, then writes there", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ship-batch-slow-'));
      const fast = new LabelBatchWriter({ filesPerTurn: 8 }, { use: 'when-slow', slowFileUs: 1e9, minFiles: 8 });
      await Promise.all(Array.from({ length: 8 }, (_, i) => fast.write([ZPL], { dir, shipmentRef: `F${i}`, format: 'ZPL' })));
      // A fast disk: no thread (its isolate would cost ~28 MB for nothing).
      expect(fast.threaded).toBe(false);
      expect(fast.jobsOffThread).toBe(0);
      const slow = new LabelBatchWriter({ filesPerTurn: 8 }, { use: 'when-slow', slowFileUs: 0, minFiles: 8 });
      await Promise.all(Array.from({ length: 8 }, (_, i) => slow.write([ZPL], { dir, shipmentRef: `S${i}`, format: 'ZPL' })));
      expect(slow.jobsOffThread).toBe(0);
      expect(slow.threaded).toBe(true);
      await slow.threadStarted();
      await Promise.all(Array.from({ length: 8 }, (_, i) => slow.write([ZPL], { dir, shipmentRef: `T${i}`, format: 'ZPL' })));
      expect(slow.jobsOffThread).toBe(8);
      expect(readdirSync(dir)).toHaveLength(24);
      await slow.close();
      await fast.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('until the thread runs, writes on the main thread (a short run is over before it has started)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ship-batch-early-'));
      const batch = new LabelBatchWriter({ filesPerTurn: 1 }, { use: 'always' });
      expect(await batch.write([ZPL], { dir, shipmentRef: 'EARLY', format: 'ZPL' })).toEqual([join(dir, 'EARLY_1.zpl')]);
      expect(batch.jobsOffThread).toBe(0);
      await batch.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('writes the same names and bytes as writeLabels; a failing file fails its shipment only; close() ends the thread', async () => {
      const a = mkdtempSync(join(tmpdir(), 'ship-batch-ta-'));
      const b = mkdtempSync(join(tmpdir(), 'ship-batch-tb-'));
      const namerA = new LabelNamer();
      const namerB = new LabelNamer();
      const batch = new LabelBatchWriter({ filesPerTurn: 3 }, { use: 'always' });
      await batch.threadStarted();
      const expected = [
        writeLabels([ZPL, `${ZPL}^FDtwo`], { dir: a, shipmentRef: 'ORD/1', format: 'ZPL', namer: namerA }),
        writeLabels(['^XA^CI28^FDZoë ☃ 😀^FS^XZ'], { dir: a, shipmentRef: 'ord/1', format: 'ZPL', namer: namerA }),
        writeLabels([pdf], { dir: a, shipmentRef: 'P-1', format: 'PDF', namer: namerA }),
      ];
      mkdirSync(join(b, 'BAD_2.zpl'));
      const written = [
        batch.write([ZPL, `${ZPL}^FDtwo`], { dir: b, shipmentRef: 'ORD/1', format: 'ZPL', namer: namerB }),
        batch.write(['^XA^CI28^FDZoë ☃ 😀^FS^XZ'], { dir: b, shipmentRef: 'ord/1', format: 'ZPL', namer: namerB }),
        batch.write([pdf], { dir: b, shipmentRef: 'P-1', format: 'PDF', namer: namerB }),
      ];
      const bad = batch.write([ZPL, ZPL, ZPL], { dir: b, shipmentRef: 'BAD', format: 'ZPL' });
      const paths = await Promise.all(written);
      expect(paths.flat().map((p) => p.slice(b.length))).toEqual(expected.flat().map((p) => p.slice(a.length)));
      for (const [i, p] of paths.flat().entries()) expect(readFileSync(p)).toEqual(readFileSync(expected.flat()[i]));
      // An error from the thread keeps its code (a full disk stops the run by it: labelDiskStop).
      await expect(bad).rejects.toMatchObject({ code: 'EISDIR' });
      expect(readdirSync(b).filter((f) => f.startsWith('BAD')).sort()).toEqual(['BAD_1.zpl', 'BAD_2.zpl']);
      // The directory removed meanwhile is made again, once.
      rmSync(b, { recursive: true, force: true });
      expect(await batch.write([ZPL], { dir: b, shipmentRef: 'AGAIN', format: 'ZPL' })).toEqual([join(b, 'AGAIN_1.zpl')]);
      // All of them went through the thread.
      expect(batch.jobsOffThread).toBe(5);
      await batch.close();
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    });
  });

  it('a label that is not its format rejects at once and writes nothing of that shipment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-batch-'));
    const batch = new LabelBatchWriter({ filesPerTurn: 10 });
    await expect(batch.write([pdf, Buffer.from('not a pdf').toString('base64')], { dir, shipmentRef: 'P', format: 'PDF' })).rejects.toThrow(/not a PDF/);
    expect(await batch.write([], { dir, shipmentRef: 'NONE', format: 'ZPL' })).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('safeFileStem fast path', () => {
  it('keeps plain references unchanged and still guards the rest', () => {
    for (const ref of ['A', 'ORDER-1001', 'web_0001', 'x'.repeat(MAX_STEM), '0-0_0']) expect(safeFileStem(ref)).toBe(ref);
    // Reserved device names, over-long plain names and anything with other characters take the full path.
    expect(safeFileStem('CON')).toBe('_CON-' + safeFileStem('CON').slice(5));
    expect(safeFileStem('CON')).toMatch(/^_CON-[0-9a-f]{8}$/);
    expect(safeFileStem('lpt1')).toMatch(/^_lpt1-[0-9a-f]{8}$/);
    expect(safeFileStem('x'.repeat(MAX_STEM + 1))).toMatch(/^x{91}-[0-9a-f]{8}$/);
    expect(safeFileStem('A.B')).toBe('A.B');
    expect(safeFileStem('A/B')).toMatch(/^A_B-[0-9a-f]{8}$/);
  });
});
