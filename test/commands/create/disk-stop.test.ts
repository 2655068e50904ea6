// Which label-write failures stop a bulk create (every later label would meet them too), and what they say.
import { describe, expect, it } from 'vitest';
import { labelDiskStop } from '../../../src/commands/create/bulk.js';
import { LabelsNotWritten } from '../../../src/commands/create/shipment.js';

const failed = (code: string) =>
  new LabelsNotWritten({ shipment_reference: 'R-1', tracking_references: ['T1'], labels: [] } as never, Object.assign(new Error(`${code}: failed`), { code }));

describe('labelDiskStop', () => {
  it('stops for a full, over-quota or read-only disk, and for a directory that cannot be written to', () => {
    expect(labelDiskStop(failed('ENOSPC'), './labels')?.message).toBe('the disk of ./labels is full (ENOSPC): labels cannot be written, so no more shipments are created');
    expect(labelDiskStop(failed('EDQUOT'), './labels')?.hint).toMatch(/^make room /);
    expect(labelDiskStop(failed('EROFS'), './labels')?.message).toMatch(/^the disk of \.\/labels is read-only \(EROFS\)/);
    // Made read-only (or taken from this user) mid-run: the shipments after it would all lose their labels.
    const denied = labelDiskStop(failed('EACCES'), './labels');
    expect(denied?.message).toBe('./labels cannot be written to (EACCES): labels cannot be written, so no more shipments are created');
    expect(denied?.hint).toMatch(/^make it writable \(or pick another --output-dir for a new run\), then rerun the same command/);
    expect(labelDiskStop(failed('EPERM'), './labels')?.exitCode).toBe(1);
  });

  it('leaves any other failure to its own shipment (a path that is a directory, a name too long)', () => {
    for (const code of ['EISDIR', 'ENAMETOOLONG', 'EIO']) expect(labelDiskStop(failed(code), './labels')).toBeUndefined();
    expect(labelDiskStop(new Error('EACCES'), './labels')).toBeUndefined();
  });
});
